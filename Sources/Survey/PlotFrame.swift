#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The axes of an x-y chart: data ranges mapped onto a pixel box, with round-numbered ticks, axis
/// titles with units, and room at the right for a legend.
public struct PlotFrame: Sendable {
    /// The plot box in pixels.
    public let left: Double, top: Double, width: Double, height: Double
    /// The data ranges shown.
    public let x: ClosedRange<Double>, y: ClosedRange<Double>
    /// Room for the legend at the right, pixels.
    public static let legendWidth = 170.0

    /// - Parameters: the figure size in pixels and the data ranges (widened when empty).
    public init(size: (Double, Double), x: ClosedRange<Double>, y: ClosedRange<Double>) {
        left = 80; top = 52
        width = size.0 - left - 24 - Self.legendWidth; height = size.1 - top - 64
        self.x = x.upperBound > x.lowerBound ? x : (x.lowerBound - 1)...(x.lowerBound + 1)
        self.y = y.upperBound > y.lowerBound ? y : (y.lowerBound - 1)...(y.lowerBound + 1)
    }

    /// The plot box.
    public var box: Rect { Rect(x: left, y: top, width: width, height: height) }

    /// The left edge of the legend column, pixels.
    public var legendX: Double { left + width + 20 }

    /// The pixel of a data point.
    public func pixel(_ vx: Double, _ vy: Double) -> Point {
        Point(left + (vx - x.lowerBound) / (x.upperBound - x.lowerBound) * width,
              top + (1 - (vy - y.lowerBound) / (y.upperBound - y.lowerBound)) * height)
    }

    /// About `count` round tick values (1, 2 or 5 × 10ⁿ apart) inside a range.
    public static func ticks(_ r: ClosedRange<Double>, count: Int = 6) -> [Double] {
        let raw = (r.upperBound - r.lowerBound) / Double(max(count, 1))
        guard raw > 0, raw.isFinite else { return [r.lowerBound] }
        let mag = pow(10, (log10(raw)).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * mag }.first { $0 >= raw } ?? 10 * mag
        var out: [Double] = []
        var v = (r.lowerBound / step).rounded(.up) * step
        while v <= r.upperBound + step * 1e-9 { out.append(abs(v) < step * 1e-9 ? 0 : v); v += step }
        return out
    }

    /// Decimals that show a tick step.
    static func decimals(_ ticks: [Double]) -> Int {
        guard ticks.count >= 2 else { return 2 }
        let step = ticks[1] - ticks[0]
        return max(0, min(4, Int((-log10(step) - 1e-9).rounded(.up))))
    }

    /// Draws the grid, the box, the tick labels, the axis titles (with their units) and the title.
    /// `xTicks` false leaves the x axis to the caller (categories).
    public func drawAxes(on canvas: Canvas, title: String, xLabel: String, yLabel: String, xTicks: Bool = true) {
        let grid = RGB(228, 228, 228)
        let xt = Self.ticks(x), yt = Self.ticks(y, count: 5)
        for v in xt where xTicks {
            let p = pixel(v, y.lowerBound)
            canvas.line(from: Point(p.x, top), to: Point(p.x, top + height), color: grid, width: 1)
            canvas.label(TextFormat.fixed(v, Self.decimals(xt)), x: p.x, y: top + height + 19, size: 11, align: 0)
        }
        for v in yt {
            let p = pixel(x.lowerBound, v)
            canvas.line(from: Point(left, p.y), to: Point(left + width, p.y), color: grid, width: 1)
            canvas.label(TextFormat.fixed(v, Self.decimals(yt)), x: left - 9, y: p.y + 4, size: 11, align: 1)
        }
        canvas.polygon([Point(left, top), Point(left + width, top), Point(left + width, top + height), Point(left, top + height)],
                       fill: nil, outline: .black, width: 1)
        canvas.label(title, x: left, y: 30, size: 16, bold: true)
        canvas.label(xLabel, x: left + width / 2, y: top + height + 48, size: 13, align: 0)
        canvas.verticalLabel(yLabel, x: 26, y: top + height / 2, size: 13)
    }

    /// Distinct colours for series (tags).
    public static let palette: [RGB] = [
        RGB(31, 119, 180), RGB(255, 127, 14), RGB(44, 160, 44), RGB(214, 39, 40), RGB(148, 103, 189),
        RGB(140, 86, 75), RGB(227, 119, 194), RGB(127, 127, 127), RGB(188, 189, 34), RGB(23, 190, 207),
    ]
}
