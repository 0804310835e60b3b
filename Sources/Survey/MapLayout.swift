public import Positioning

/// Where a site's floor plan goes on a figure: a uniform scale from site metres to pixels, the site's
/// minimum y at the bottom, with margins for the title, the axes and a legend at the right.
public struct MapLayout: Sendable, Equatable {
    /// Pixels per metre.
    public let scale: Double
    /// The map's top-left corner in pixels.
    public let left: Double, top: Double
    /// The map's size in pixels.
    public let mapWidth: Double, mapHeight: Double
    /// The whole figure's size in pixels.
    public let width: Double, height: Double
    let minX: Double, maxY: Double

    /// Room at the left for the y ticks and the y axis title, pixels.
    public static let leftMargin = 74.0
    /// Room at the top for the title, pixels.
    public static let topMargin = 52.0
    /// Room under the map for the x ticks and the x axis title, pixels.
    public static let bottomMargin = 56.0

    /// - Parameters:
    ///   - bounds: the site bounds (x, y are drawn).
    ///   - maxMapSize: the largest map area in pixels; the scale keeps the aspect ratio.
    ///   - legendWidth: room at the right for the legend, pixels.
    ///   - legendHeight: the legend's height, pixels: the figure is at least that tall.
    public init(bounds: Bounds, maxMapSize: (Double, Double) = (800, 540), legendWidth: Double = 210,
                legendHeight: Double = 0) {
        let w = max(bounds.max.x - bounds.min.x, 1e-3), h = max(bounds.max.y - bounds.min.y, 1e-3)
        scale = min(maxMapSize.0 / w, maxMapSize.1 / h)
        left = Self.leftMargin; top = Self.topMargin
        mapWidth = w * scale; mapHeight = h * scale
        width = (left + mapWidth + 24 + legendWidth).rounded(.up)
        height = max(top + mapHeight + Self.bottomMargin, top + legendHeight + 16).rounded(.up)
        minX = bounds.min.x; maxY = bounds.max.y
    }

    /// Pixel coordinates of a site point (x, y in metres).
    public func pixel(_ x: Double, _ y: Double) -> Point {
        Point(left + (x - minX) * scale, top + (maxY - y) * scale)
    }

    /// The map area, pixels.
    public var map: Rect { Rect(x: left, y: top, width: mapWidth, height: mapHeight) }

    /// The left edge of the legend column, pixels.
    public var legendX: Double { left + mapWidth + 24 }

    /// Where labels of the map's contents may go: the map and a band around it, short of the legend.
    public var labelArea: Rect { Rect(x: left - 40, y: top - 14, width: mapWidth + 60, height: mapHeight + 28) }
}
