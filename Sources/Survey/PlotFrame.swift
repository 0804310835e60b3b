#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The axes of an x-y chart: data ranges mapped onto a pixel box, with round-numbered ticks.
public struct PlotFrame: Sendable {
    /// The plot box in pixels.
    public let left: Double, top: Double, width: Double, height: Double
    /// The data ranges shown.
    public let x: ClosedRange<Double>, y: ClosedRange<Double>

    /// - Parameters: the figure size in pixels and the data ranges (widened when empty).
    public init(size: (Double, Double), x: ClosedRange<Double>, y: ClosedRange<Double>) {
        left = 64; top = 40
        width = size.0 - left - 20; height = size.1 - top - 50
        self.x = x.upperBound > x.lowerBound ? x : (x.lowerBound - 1)...(x.lowerBound + 1)
        self.y = y.upperBound > y.lowerBound ? y : (y.lowerBound - 1)...(y.lowerBound + 1)
    }

    /// The pixel of a data point.
    public func pixel(_ vx: Double, _ vy: Double) -> (Double, Double) {
        (left + (vx - x.lowerBound) / (x.upperBound - x.lowerBound) * width,
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
        return max(0, min(4, Int((-log10(step)).rounded(.up))))
    }

    /// Draws the box, grid lines, tick labels, axis titles and the chart title.
    public func drawAxes<C: Canvas>(on canvas: inout C, title: String, xLabel: String, yLabel: String,
                                    xTicks: Bool = true) {
        let grid = RGB(225, 225, 225)
        let xt = Self.ticks(x), yt = Self.ticks(y, count: 5)
        for v in xt where xTicks {
            let p = pixel(v, y.lowerBound)
            canvas.stroke(from: (p.0, top), to: (p.0, top + height), color: grid, width: 1)
            canvas.label(TextFormat.fixed(v, Self.decimals(xt)), x: p.0, y: top + height + 16, size: 11, align: 0, color: .black)
        }
        for v in yt {
            let p = pixel(x.lowerBound, v)
            canvas.stroke(from: (left, p.1), to: (left + width, p.1), color: grid, width: 1)
            canvas.label(TextFormat.fixed(v, Self.decimals(yt)), x: left - 6, y: p.1 + 4, size: 11, align: 1, color: .black)
        }
        canvas.polygon([(left, top), (left + width, top), (left + width, top + height), (left, top + height)],
                       fill: nil, alpha: 1, outline: .black, width: 1)
        canvas.label(title, x: left, y: 24, size: 16, align: -1, color: .black)
        canvas.label(xLabel, x: left + width, y: top + height + 36, size: 12, align: 1, color: .black)
        canvas.label(yLabel, x: left + 4, y: top - 6, size: 12, align: -1, color: .black)
    }

    /// Distinct colours for series (tags, anchors).
    public static let palette: [RGB] = [
        RGB(31, 119, 180), RGB(255, 127, 14), RGB(44, 160, 44), RGB(214, 39, 40), RGB(148, 103, 189),
        RGB(140, 86, 75), RGB(227, 119, 194), RGB(127, 127, 127), RGB(188, 189, 34), RGB(23, 190, 207),
    ]
}
