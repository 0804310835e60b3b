#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Positioning
import Numerics

/// Where a site's floor plan goes on a figure: a uniform scale from site metres to pixels, the site's
/// minimum y at the bottom, with margins for a title, axes and a legend.
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

    /// - Parameters:
    ///   - bounds: the site bounds (x, y are drawn).
    ///   - maxMapSize: the largest map area in pixels; the scale keeps the aspect ratio.
    ///   - legendWidth: room at the right for a legend, pixels.
    public init(bounds: Bounds, maxMapSize: (Double, Double) = (800, 560), legendWidth: Double = 110) {
        let w = max(bounds.max.x - bounds.min.x, 1e-3), h = max(bounds.max.y - bounds.min.y, 1e-3)
        scale = min(maxMapSize.0 / w, maxMapSize.1 / h)
        left = 50; top = 44
        mapWidth = w * scale; mapHeight = h * scale
        width = (left + mapWidth + legendWidth + 10).rounded(.up)
        height = (top + mapHeight + 40).rounded(.up)
        minX = bounds.min.x; maxY = bounds.max.y
    }

    /// Pixel coordinates of a site point (x, y in metres).
    public func pixel(_ x: Double, _ y: Double) -> (Double, Double) {
        (left + (x - minX) * scale, top + (maxY - y) * scale)
    }
}

/// Draws the parts of a site on a map: frame with metre ticks, zones, anchors and direction cones.
public enum SiteOverlay {
    static let uwbColor = RGB(31, 78, 156), csColor = RGB(123, 50, 148), dualColor = RGB(20, 20, 20)
    static let zoneColor = RGB(40, 40, 40), coneColor = RGB(31, 78, 156)

    /// Draws the frame and axis ticks (every 5 or 10 m).
    public static func drawFrame<C: Canvas>(_ site: Site, _ layout: MapLayout, on canvas: inout C) {
        let b = site.bounds
        let corners = [layout.pixel(b.min.x, b.min.y), layout.pixel(b.max.x, b.min.y),
                       layout.pixel(b.max.x, b.max.y), layout.pixel(b.min.x, b.max.y)]
        canvas.polygon(corners, fill: nil, alpha: 1, outline: .black, width: 1)
        let span = max(b.max.x - b.min.x, b.max.y - b.min.y)
        let step = span > 60 ? 20.0 : (span > 30 ? 10.0 : 5.0)
        var x = (b.min.x / step).rounded(.up) * step
        while x <= b.max.x + 1e-9 {
            let p = layout.pixel(x, b.min.y)
            canvas.stroke(from: p, to: (p.0, p.1 + 4), color: .black, width: 1)
            canvas.label(TextFormat.fixed(x, 0), x: p.0, y: p.1 + 16, size: 11, align: 0, color: .black)
            x += step
        }
        var y = (b.min.y / step).rounded(.up) * step
        while y <= b.max.y + 1e-9 {
            let p = layout.pixel(b.min.x, y)
            canvas.stroke(from: (p.0 - 4, p.1), to: p, color: .black, width: 1)
            canvas.label(TextFormat.fixed(y, 0), x: p.0 - 6, y: p.1 + 4, size: 11, align: 1, color: .black)
            y += step
        }
        let axis = layout.pixel(b.max.x, b.min.y)
        canvas.label("x (m)", x: axis.0, y: axis.1 + 30, size: 11, align: 1, color: .black)
    }

    /// Draws zones as outlines with their names.
    public static func drawZones<C: Canvas>(_ site: Site, _ layout: MapLayout, on canvas: inout C) {
        for z in site.zones where z.polygon.count >= 3 {
            let pts = z.polygon.map { layout.pixel($0.0, $0.1) }
            canvas.polygon(pts, fill: nil, alpha: 1, outline: zoneColor, width: 2)
            let cx = pts.map(\.0).reduce(0, +) / Double(pts.count), cy = pts.map(\.1).reduce(0, +) / Double(pts.count)
            canvas.label(z.name, x: cx, y: cy, size: 12, align: 0, color: zoneColor)
        }
    }

    /// Draws anchors (coloured by technology) with their ids, and the plan view of the field of view of
    /// oriented anchors as translucent cones `coneLength` metres long.
    public static func drawAnchors<C: Canvas>(_ site: Site, _ layout: MapLayout, on canvas: inout C,
                                              coneLength: Double = 5, highlight: Set<String> = []) {
        for a in site.anchors {
            guard let o = a.orientation else { continue }
            let b = o.toSite(Vec3(1, 0, 0))
            let heading = atan2(b.y, b.x)
            let half = min((a.fieldOfView ?? 2 * .pi) / 2, .pi)
            var pts = [layout.pixel(a.position.x, a.position.y)]
            for i in 0...16 {
                let t = heading - half + 2 * half * Double(i) / 16
                pts.append(layout.pixel(a.position.x + coneLength * cos(t), a.position.y + coneLength * sin(t)))
            }
            canvas.polygon(pts, fill: coneColor, alpha: 0.18, outline: coneColor, width: 1)
        }
        for a in site.anchors {
            let p = layout.pixel(a.position.x, a.position.y)
            let color = highlight.contains(a.id) ? RGB(230, 0, 120)
                : (a.technologies.count > 1 ? dualColor : (a.technologies.first == .cs ? csColor : uwbColor))
            canvas.disc(center: p, radius: 5, fill: color, outline: .white)
            canvas.label(a.id, x: p.0 + 7, y: p.1 - 6, size: 12, align: -1, color: .black)
        }
    }
}
