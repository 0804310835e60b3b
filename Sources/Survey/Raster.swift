/// An RGB image in memory (8 bits per channel, rows from the top) with a tiny rasteriser: rectangles,
/// lines, discs, polygons and bitmap text. Coordinates are pixels, x right and y down.
public struct Raster: Sendable, Equatable {
    public let width: Int, height: Int
    /// `width × height × 3` bytes, row-major from the top.
    public var pixels: [UInt8]

    /// A blank image.
    /// - Parameters: size in pixels (≥ 1) and the background colour.
    public init(width: Int, height: Int, background: RGB = .white) {
        self.width = max(1, width); self.height = max(1, height)
        pixels = []
        pixels.reserveCapacity(self.width * self.height * 3)
        for _ in 0..<(self.width * self.height) { pixels += [background.r, background.g, background.b] }
    }

    /// An image from raw RGB bytes (`width × height × 3`).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3)
        self.width = width; self.height = height; self.pixels = pixels
    }

    /// The colour at a pixel (which must be inside the image).
    public func pixel(_ x: Int, _ y: Int) -> RGB {
        let i = (y * width + x) * 3
        return RGB(pixels[i], pixels[i + 1], pixels[i + 2])
    }

    /// Paints one pixel, mixing with `alpha` (0…1); outside the image: nothing.
    public mutating func plot(_ x: Int, _ y: Int, _ c: RGB, alpha: Double = 1) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        if alpha >= 1 {
            pixels[i] = c.r; pixels[i + 1] = c.g; pixels[i + 2] = c.b
            return
        }
        func mix(_ old: UInt8, _ new: UInt8) -> UInt8 {
            UInt8((Double(old) + alpha * (Double(new) - Double(old))).rounded())
        }
        pixels[i] = mix(pixels[i], c.r); pixels[i + 1] = mix(pixels[i + 1], c.g); pixels[i + 2] = mix(pixels[i + 2], c.b)
    }

    /// Fills the pixels whose centres lie in `[x0, x1) × [y0, y1)`.
    public mutating func fillRect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ c: RGB, alpha: Double = 1) {
        let xa = max(0, Int((min(x0, x1) - 0.5).rounded(.up))), xb = min(width, Int((max(x0, x1) - 0.5).rounded(.up)))
        let ya = max(0, Int((min(y0, y1) - 0.5).rounded(.up))), yb = min(height, Int((max(y0, y1) - 0.5).rounded(.up)))
        guard xa < xb, ya < yb else { return }
        for y in ya..<yb { for x in xa..<xb { plot(x, y, c, alpha: alpha) } }
    }

    /// A filled disc of radius `r` pixels.
    public mutating func fillCircle(_ cx: Double, _ cy: Double, _ r: Double, _ c: RGB) {
        let ya = Int((cy - r).rounded(.down)), yb = Int((cy + r).rounded(.up))
        let xa = Int((cx - r).rounded(.down)), xb = Int((cx + r).rounded(.up))
        for y in ya...yb {
            for x in xa...xb {
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                if dx * dx + dy * dy <= r * r { plot(x, y, c) }
            }
        }
    }

    /// A straight line `width` pixels thick.
    public mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ c: RGB, width w: Double = 1) {
        let length = ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot()
        let steps = max(1, Int((length * 2).rounded(.up)))
        let h = max(0.5, w / 2)
        for i in 0...steps {
            let t = Double(i) / Double(steps)
            let x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0)
            fillRect(x - h, y - h, x + h, y + h, c)
        }
    }

    /// Fills a polygon (even-odd rule), optionally translucent.
    public mutating func fillPolygon(_ points: [(Double, Double)], _ c: RGB, alpha: Double = 1) {
        guard points.count >= 3 else { return }
        let ys = points.map(\.1)
        let ya = max(0, Int(ys.min()!.rounded(.down))), yb = min(height - 1, Int(ys.max()!.rounded(.up)))
        guard ya <= yb else { return }
        for y in ya...yb {
            let sy = Double(y) + 0.5
            var xs: [Double] = []
            var j = points.count - 1
            for i in 0..<points.count {
                let (xi, yi) = points[i], (xj, yj) = points[j]
                if (yi > sy) != (yj > sy) { xs.append(xi + (sy - yi) * (xj - xi) / (yj - yi)) }
                j = i
            }
            xs.sort()
            var k = 0
            while k + 1 < xs.count {
                let xa = max(0, Int((xs[k] - 0.5).rounded(.up))), xb = min(width - 1, Int((xs[k + 1] - 0.5).rounded(.down)))
                if xa <= xb { for x in xa...xb { plot(x, y, c, alpha: alpha) } }
                k += 2
            }
        }
    }

    /// The outline of a closed polygon.
    public mutating func strokePolygon(_ points: [(Double, Double)], _ c: RGB, width w: Double = 1) {
        guard points.count >= 2 else { return }
        for i in 0..<points.count {
            let a = points[i], b = points[(i + 1) % points.count]
            line(a.0, a.1, b.0, b.1, c, width: w)
        }
    }

    /// Text in the built-in 5 × 7 bitmap font, top-left corner at (x, y), each font pixel `scale`
    /// pixels square. Lower-case letters are drawn as capitals; unknown characters as a box.
    public mutating func text(_ s: String, x: Double, y: Double, _ c: RGB, scale: Int = 1) {
        var cx = Int(x.rounded()), cy = Int(y.rounded())
        let x0 = cx
        for ch in s {
            if ch == "\n" { cx = x0; cy += 9 * scale; continue }
            let rows = BitmapFont.glyph(ch)
            for (ry, bits) in rows.enumerated() {
                for rx in 0..<5 where bits & (0b10000 >> rx) != 0 {
                    for sy in 0..<scale { for sx in 0..<scale { plot(cx + rx * scale + sx, cy + ry * scale + sy, c) } }
                }
            }
            cx += 6 * scale
        }
    }
}
