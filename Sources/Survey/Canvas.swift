/// Where figures are drawn: an SVG document or a raster image. Figures draw once, through this
/// protocol, so the SVG and the PNG of a figure show the same thing. Pixels, x right, y down.
public protocol Canvas {
    /// A filled rectangle, optionally translucent (alpha 0…1).
    mutating func fill(x: Double, y: Double, width: Double, height: Double, color: RGB, alpha: Double)
    /// A straight line.
    mutating func stroke(from: (Double, Double), to: (Double, Double), color: RGB, width: Double)
    /// A filled disc with an outline.
    mutating func disc(center: (Double, Double), radius: Double, fill: RGB, outline: RGB)
    /// A polygon, filled (optionally translucent) and/or outlined.
    mutating func polygon(_ points: [(Double, Double)], fill: RGB?, alpha: Double, outline: RGB?, width: Double)
    /// An open polyline.
    mutating func polyline(_ points: [(Double, Double)], color: RGB, width: Double)
    /// A label with its baseline at `y`; `align` is -1 (left), 0 (centre) or 1 (right). `size` in pixels.
    mutating func label(_ text: String, x: Double, y: Double, size: Double, align: Int, color: RGB)
}

extension SVGDocument: Canvas {
    public mutating func fill(x: Double, y: Double, width: Double, height: Double, color: RGB, alpha: Double) {
        rect(x, y, width, height, fill: color.hex,
             extra: alpha < 1 ? "fill-opacity=\"\(Self.n(alpha))\"" : "shape-rendering=\"crispEdges\"")
    }

    public mutating func stroke(from a: (Double, Double), to b: (Double, Double), color: RGB, width: Double) {
        line(a.0, a.1, b.0, b.1, stroke: color.hex, width: width)
    }

    public mutating func disc(center: (Double, Double), radius: Double, fill: RGB, outline: RGB) {
        circle(center.0, center.1, radius, fill: fill.hex, stroke: outline.hex)
    }

    public mutating func polygon(_ points: [(Double, Double)], fill: RGB?, alpha: Double, outline: RGB?, width: Double) {
        poly(points, closed: true, fill: fill?.hex ?? "none", stroke: outline?.hex ?? "none", width: width,
             extra: fill != nil && alpha < 1 ? "fill-opacity=\"\(Self.n(alpha))\"" : "")
    }

    public mutating func polyline(_ points: [(Double, Double)], color: RGB, width: Double) {
        poly(points, closed: false, stroke: color.hex, width: width, extra: "stroke-linejoin=\"round\"")
    }

    public mutating func label(_ s: String, x: Double, y: Double, size: Double, align: Int, color: RGB) {
        text(s, x, y, size: size, anchor: align < 0 ? "start" : (align == 0 ? "middle" : "end"), fill: color.hex)
    }
}

extension Raster: Canvas {
    public mutating func fill(x: Double, y: Double, width: Double, height: Double, color: RGB, alpha: Double) {
        fillRect(x, y, x + width, y + height, color, alpha: alpha)
    }

    public mutating func stroke(from a: (Double, Double), to b: (Double, Double), color: RGB, width: Double) {
        line(a.0, a.1, b.0, b.1, color, width: width)
    }

    public mutating func disc(center: (Double, Double), radius: Double, fill: RGB, outline: RGB) {
        fillCircle(center.0, center.1, radius + 1, outline)
        fillCircle(center.0, center.1, radius, fill)
    }

    public mutating func polygon(_ points: [(Double, Double)], fill: RGB?, alpha: Double, outline: RGB?, width: Double) {
        if let fill { fillPolygon(points, fill, alpha: alpha) }
        if let outline { strokePolygon(points, outline, width: width) }
    }

    public mutating func polyline(_ points: [(Double, Double)], color: RGB, width: Double) {
        guard points.count >= 2 else { return }
        for i in 1..<points.count { line(points[i - 1].0, points[i - 1].1, points[i].0, points[i].1, color, width: width) }
    }

    /// Bitmap text: 7-pixel capitals at scale 1, doubled from a 16-pixel size up.
    public mutating func label(_ s: String, x: Double, y: Double, size: Double, align: Int, color: RGB) {
        let scale = size >= 16 ? 2 : 1
        let w = Double(BitmapFont.width(s) * scale)
        let left = align < 0 ? x : (align == 0 ? x - w / 2 : x - w)
        text(s, x: left, y: y - Double(7 * scale), color, scale: scale)
    }
}
