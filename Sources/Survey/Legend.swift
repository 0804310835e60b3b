/// A legend: a column of entries, each a swatch and a label, with optional headings. Drawn in a
/// figure's right margin, away from the data.
public struct Legend: Sendable {
    /// How an entry's swatch looks.
    public enum Swatch: Sendable {
        /// A disc, as anchors are drawn.
        case disc(RGB)
        /// A line segment `width` pixels thick, dashed when `dash` > 0.
        case line(RGB, width: Double, dash: Double)
        /// A translucent area, as direction cones are drawn.
        case area(RGB, alpha: Double)
        /// A filled box, as bars are drawn.
        case box(RGB)
        /// No swatch: a heading, in bold.
        case none
        /// No swatch: a note, indented like the entries.
        case note
    }

    public var entries: [(swatch: Swatch, text: String)] = []
    /// Label size, pixels.
    public static let textSize = 12.0
    /// Height of one entry, pixels.
    public static let rowHeight = 19.0

    public init() {}

    /// Adds a heading (drawn in bold, without a swatch).
    public mutating func heading(_ text: String) { entries.append((.none, text)) }
    /// Adds an entry.
    public mutating func add(_ swatch: Swatch, _ text: String) { entries.append((swatch, text)) }

    /// The legend's height, pixels.
    public var height: Double { Double(entries.count) * Self.rowHeight }

    /// Draws the legend with its top-left corner at (x, y); returns the bottom edge.
    @discardableResult
    public func draw(on canvas: Canvas, x: Double, y: Double) -> Double {
        var top = y
        for (swatch, text) in entries {
            let mid = top + Self.rowHeight / 2
            switch swatch {
            case .disc(let c): canvas.disc(center: Point(x + 9, mid), radius: 5, fill: c, outline: .white, data: false)
            case .line(let c, let w, let dash): canvas.line(from: Point(x, mid), to: Point(x + 18, mid), color: c, width: w, dash: dash)
            case .area(let c, let alpha):
                canvas.polygon([Point(x + 1, mid + 6), Point(x + 17, mid - 7), Point(x + 17, mid + 7)], fill: c, alpha: alpha,
                               outline: c, width: 1)
            case .box(let c): canvas.fill(Rect(x: x + 2, y: mid - 6, width: 14, height: 12), color: c)
            case .none, .note: break
            }
            if case .none = swatch {
                canvas.label(text, x: x, y: mid + 4, size: Self.textSize, bold: true)
            } else {
                canvas.label(text, x: x + 26, y: mid + 4, size: Self.textSize)
            }
            top += Self.rowHeight
        }
        return top
    }
}
