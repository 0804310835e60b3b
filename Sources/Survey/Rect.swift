/// An axis-aligned box on a figure, pixels: top-left corner and size.
public struct Rect: Sendable, Equatable, CustomStringConvertible {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var description: String { "(\(x), \(y), \(width) × \(height))" }

    /// The box grown by `d` pixels on every side (shrunk when negative).
    public func inset(_ d: Double) -> Rect { Rect(x: x + d, y: y + d, width: width - 2 * d, height: height - 2 * d) }

    /// Whether the two boxes share interior area.
    public func intersects(_ o: Rect) -> Bool { x < o.maxX && o.x < maxX && y < o.maxY && o.y < maxY }

    /// Whether `o` lies wholly inside this box.
    public func contains(_ o: Rect) -> Bool { o.x >= x && o.y >= y && o.maxX <= maxX && o.maxY <= maxY }

    /// Whether the segment a–b passes through the box (Liang–Barsky clipping).
    public func intersects(segment a: Point, _ b: Point) -> Bool {
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        for (p, q) in [(-dx, a.x - x), (dx, maxX - a.x), (-dy, a.y - y), (dy, maxY - a.y)] {
            if p == 0 {
                if q < 0 { return false }
            } else {
                let r = q / p
                if p < 0 { if r > t1 { return false }; t0 = max(t0, r) } else { if r < t0 { return false }; t1 = min(t1, r) }
            }
        }
        return t0 <= t1
    }
}
