internal import Positioning
