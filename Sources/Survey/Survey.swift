internal import CPNG
