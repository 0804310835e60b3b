import Numerics
import Positioning

/// The figures of an accuracy report, drawn on any canvas (SVG or PNG).
public enum ReportFigures {
    /// Chart size in pixels.
    public static let size = (860.0, 420.0)

    /// Keeps at most `limit` evenly spaced items of a series, for drawing.
    static func thin<T>(_ xs: [T], _ limit: Int = 3000) -> [T] {
        guard xs.count > limit else { return xs }
        let step = Double(xs.count) / Double(limit)
        return (0..<limit).map { xs[Int(Double($0) * step)] }
    }

    /// Error against time, one line per tag, with the RMSE as a dashed level.
    public static func errorOverTime<C: Canvas>(_ r: AccuracyReport, on canvas: inout C) {
        let maxT = r.errors.map(\.seconds).max() ?? 1, maxE = r.errors.map(\.error).max() ?? 1
        let frame = PlotFrame(size: size, x: 0...max(maxT, 1e-3), y: 0...max(maxE * 1.05, 1e-3))
        frame.drawAxes(on: &canvas, title: "Position error over time", xLabel: "time (s)", yLabel: "error (m)")
        let tags = Array(Set(r.errors.map(\.tag))).sorted()
        for (k, tag) in tags.enumerated() {
            let pts = thin(r.errors.filter { $0.tag == tag }).map { frame.pixel($0.seconds, $0.error) }
            canvas.polyline(pts, color: PlotFrame.palette[k % PlotFrame.palette.count], width: 1)
        }
        if let rmse = r.metrics?.rmse, rmse.isFinite {
            let y = frame.pixel(0, rmse).1
            canvas.stroke(from: (frame.left, y), to: (frame.left + frame.width, y), color: .black, width: 1.5)
            canvas.label("RMSE " + TextFormat.fixed(rmse, 3) + " m", x: frame.left + frame.width - 4, y: y - 4, size: 12,
                         align: 1, color: .black)
        }
    }

    /// The empirical CDF of the errors, with the median and the 95th percentile marked.
    public static func errorCDF<C: Canvas>(_ r: AccuracyReport, on canvas: inout C) {
        let sorted = r.errors.map(\.error).sorted()
        let maxE = SiteMetrics.percentile(sorted: sorted, 0.995)
        let frame = PlotFrame(size: size, x: 0...max(maxE.isFinite ? maxE * 1.05 : 1, 1e-3), y: 0...1)
        frame.drawAxes(on: &canvas, title: "Error CDF", xLabel: "error (m)", yLabel: "share of positions")
        let n = Double(sorted.count)
        let pts = thin(Array(sorted.enumerated())).map { frame.pixel(min($0.element, frame.x.upperBound), Double($0.offset + 1) / n) }
        canvas.polyline(pts, color: PlotFrame.palette[0], width: 2)
        for (q, name) in [(0.5, "median"), (0.95, "p95")] {
            let v = SiteMetrics.percentile(sorted: sorted, q)
            guard v.isFinite else { continue }
            let p = frame.pixel(v, q)
            canvas.stroke(from: (p.0, frame.top + frame.height), to: p, color: .black, width: 1)
            canvas.label("\(name) \(TextFormat.fixed(v, 3)) m", x: p.0 + 4, y: p.1 + 14, size: 12, align: -1, color: .black)
        }
    }

    /// The tracks on the site map: truth in grey, estimates coloured per tag, anchors and zones on top.
    public static func trackMap<C: Canvas>(_ r: AccuracyReport, on canvas: inout C) {
        let layout = MapLayout(bounds: r.site.bounds, maxMapSize: (800, 520), legendWidth: 10)
        SiteOverlay.drawFrame(r.site, layout, on: &canvas)
        SiteOverlay.drawZones(r.site, layout, on: &canvas)
        let tags = Array(r.truth.keys).sorted()
        for tag in tags {
            canvas.polyline(thin(r.truth[tag]!).map { layout.pixel($0.x, $0.y) }, color: RGB(170, 170, 170), width: 3)
        }
        for (k, tag) in Array(r.estimated.keys).sorted().enumerated() {
            canvas.polyline(thin(r.estimated[tag]!).map { layout.pixel($0.x, $0.y) },
                            color: PlotFrame.palette[k % PlotFrame.palette.count], width: 1)
        }
        SiteOverlay.drawAnchors(r.site, layout, on: &canvas, coneLength: 3)
        canvas.label("Tracks: truth (grey) and estimates (colour)", x: layout.left, y: 26, size: 16, align: -1, color: .black)
    }

    /// The layout of the track map (its size).
    public static func trackMapLayout(_ r: AccuracyReport) -> MapLayout {
        MapLayout(bounds: r.site.bounds, maxMapSize: (800, 520), legendWidth: 10)
    }

    /// Per-anchor range residuals (measured − true distance): bias as a bar, ± 1 std as a whisker.
    public static func residuals<C: Canvas>(_ r: AccuracyReport, on canvas: inout C) {
        let rows = r.residuals
        let lo = min(rows.map { $0.bias - $0.std }.min() ?? -0.1, -0.05)
        let hi = max(rows.map { $0.bias + $0.std }.max() ?? 0.1, 0.05)
        let frame = PlotFrame(size: size, x: 0...Double(max(rows.count, 1)), y: (lo * 1.1)...(hi * 1.1))
        frame.drawAxes(on: &canvas, title: "Range residuals per anchor (bias ± std)", xLabel: "",
                       yLabel: "measured − true distance (m)", xTicks: false)
        let zero = frame.pixel(0, 0).1
        canvas.stroke(from: (frame.left, zero), to: (frame.left + frame.width, zero), color: .black, width: 1)
        let slot = frame.width / Double(max(rows.count, 1))
        for (k, b) in rows.enumerated() {
            let cx = frame.left + (Double(k) + 0.5) * slot
            let top = frame.pixel(0, max(b.bias, 0)).1, bottom = frame.pixel(0, min(b.bias, 0)).1
            let color = b.technology == .cs ? SiteOverlay.csColor : SiteOverlay.uwbColor
            canvas.fill(x: cx - slot * 0.3, y: top, width: slot * 0.6, height: max(bottom - top, 1), color: color, alpha: 0.8)
            let a = frame.pixel(0, b.bias + b.std).1, z = frame.pixel(0, b.bias - b.std).1
            canvas.stroke(from: (cx, a), to: (cx, z), color: .black, width: 1.5)
            canvas.stroke(from: (cx - 5, a), to: (cx + 5, a), color: .black, width: 1.5)
            canvas.stroke(from: (cx - 5, z), to: (cx + 5, z), color: .black, width: 1.5)
            canvas.label("\(b.anchor) \(b.technology.rawValue)", x: cx, y: frame.top + frame.height + 16, size: 11,
                         align: 0, color: .black)
        }
    }
}
