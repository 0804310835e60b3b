/// A small SVG writer: elements appended as text, coordinates in pixels (x right, y down).
public struct SVGDocument: Sendable {
    public let width: Double, height: Double
    private var body: [String] = []

    /// - Parameters: the canvas size in pixels.
    public init(width: Double, height: Double) { self.width = width; self.height = height }

    /// A number with two decimals, the SVG coordinate precision used throughout.
    static func n(_ v: Double) -> String { TextFormat.fixed(v, 2) }

    /// Text escaped for XML.
    public static func escape(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// Appends raw SVG markup.
    public mutating func raw(_ s: String) { body.append(s) }

    public mutating func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String,
                              stroke: String? = nil, extra: String = "") {
        var s = "<rect x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" width=\"\(Self.n(w))\" height=\"\(Self.n(h))\" fill=\"\(fill)\""
        if let stroke { s += " stroke=\"\(stroke)\"" }
        body.append(s + (extra.isEmpty ? "" : " " + extra) + "/>")
    }

    public mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, stroke: String,
                              width: Double = 1, extra: String = "") {
        body.append("<line x1=\"\(Self.n(x0))\" y1=\"\(Self.n(y0))\" x2=\"\(Self.n(x1))\" y2=\"\(Self.n(y1))\" stroke=\"\(stroke)\" stroke-width=\"\(Self.n(width))\"\(extra.isEmpty ? "" : " " + extra)/>")
    }

    public mutating func circle(_ cx: Double, _ cy: Double, _ r: Double, fill: String, stroke: String? = nil) {
        var s = "<circle cx=\"\(Self.n(cx))\" cy=\"\(Self.n(cy))\" r=\"\(Self.n(r))\" fill=\"\(fill)\""
        if let stroke { s += " stroke=\"\(stroke)\"" }
        body.append(s + "/>")
    }

    /// A polygon (closed) or polyline (open, no fill).
    public mutating func poly(_ points: [(Double, Double)], closed: Bool, fill: String = "none", stroke: String,
                              width: Double = 1, extra: String = "") {
        let pts = points.map { "\(Self.n($0.0)),\(Self.n($0.1))" }.joined(separator: " ")
        let tag = closed ? "polygon" : "polyline"
        body.append("<\(tag) points=\"\(pts)\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"\(Self.n(width))\"\(extra.isEmpty ? "" : " " + extra)/>")
    }

    /// Text; `anchor` is `start`, `middle` or `end`.
    public mutating func text(_ s: String, _ x: Double, _ y: Double, size: Double = 12, anchor: String = "start",
                              fill: String = "#000", extra: String = "") {
        body.append("<text x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" font-size=\"\(Self.n(size))\" text-anchor=\"\(anchor)\" fill=\"\(fill)\"\(extra.isEmpty ? "" : " " + extra)>\(Self.escape(s))</text>")
    }

    /// The document as UTF-8 bytes.
    public func bytes() -> [UInt8] {
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\" font-family=\"sans-serif\">\n"
        s += body.joined(separator: "\n")
        s += "\n</svg>\n"
        return Array(s.utf8)
    }
}
