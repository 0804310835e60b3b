import Numerics
internal import Positioning

/// The figures of an accuracy report. Each is drawn on a canvas of its `size`; charts keep their
/// legend in the right margin, and labels inside a chart go where they cover no data.
public enum ReportFigures {
    /// Chart size in pixels.
    public static let size = (900.0, 440.0)
    /// Tags listed in a legend by name; more are summed up in one line.
    static let legendTags = 12

    /// One figure of the report: its file name (without extension), caption, size and drawing.
    public struct Figure: Sendable {
        public var name: String
        public var caption: String
        public var size: (Double, Double)
        public var draw: @Sendable (Canvas) -> Void
    }

    /// The report's figures: with truth, the error over time and its CDF first; then the tracks, the
    /// range residuals, the predicted accuracy and the anchors' health.
    public static func figures(_ r: AccuracyReport) -> [Figure] {
        let map = trackMapLayout(r)
        var out: [Figure] = []
        if r.hasTruth {
            out.append(Figure(name: "error-time", caption: "Position error over time, per tag", size: size) { errorOverTime(r, on: $0) })
            out.append(Figure(name: "error-cdf", caption: "Cumulative distribution of the position error", size: size) { errorCDF(r, on: $0) })
        }
        out.append(Figure(name: "tracks", caption: r.hasTruth ? "Estimated tracks against the truth" : "Estimated tracks",
                          size: (map.width, map.height)) { trackMap(r, on: $0) })
        out.append(Figure(name: "residuals", caption: r.hasTruth
                            ? "Range residuals per anchor against the truth: bias (bar) ± 1 std (whisker)"
                            : "Range residuals per anchor against the estimated tracks: bias (bar) ± 1 std (whisker)",
                          size: size) { residuals(r, on: $0) })
        out.append(Figure(name: "predicted", caption: "The engine's predicted 1-σ accuracy over time, per tag", size: size) {
            predictedAccuracy(r, on: $0)
        })
        out.append(Figure(name: "anchor-health", caption: "Anchor health: normalised innovation RMS and rejected ranges",
                          size: size) { anchorHealth(r, on: $0) })
        return out
    }

    /// Renders one figure in a format.
    public static func render(_ f: Figure, format: ImageFormat) throws(RenderError) -> [UInt8] {
        let canvas = try Canvas(width: f.size.0, height: f.size.1, format: format)
        f.draw(canvas)
        return try canvas.finish()
    }

    /// Keeps at most `limit` evenly spaced items of a series, for drawing.
    static func thin<T>(_ xs: [T], _ limit: Int = 3000) -> [T] {
        guard xs.count > limit else { return xs }
        let step = Double(xs.count) / Double(limit)
        return (0..<limit).map { xs[Int(Double($0) * step)] }
    }

    /// The colour of the k-th tag (tags in sorted order).
    static func tagColor(_ k: Int) -> RGB { PlotFrame.palette[k % PlotFrame.palette.count] }

    /// Legend entries for tags: one line each, up to `legendTags`.
    static func tagLegend(_ tags: [String], into legend: inout Legend, width: Double = 1.5) {
        legend.heading("Tags")
        for (k, tag) in tags.prefix(legendTags).enumerated() { legend.add(.line(tagColor(k), width: 2.5, dash: 0), tag) }
        if tags.count > legendTags { legend.add(.note, "… and \(tags.count - legendTags) more") }
    }

    /// One line per tag of a time series, on a frame.
    static func series(_ tags: [String], _ points: (String) -> [(Double, Double)], frame: PlotFrame, on canvas: Canvas) {
        for (k, tag) in tags.enumerated() {
            canvas.polyline(thin(points(tag)).map { frame.pixel($0.0, $0.1) }, color: tagColor(k), width: 1.2)
        }
    }

    /// Error against time, one line per tag, with the RMSE as a dashed level.
    public static func errorOverTime(_ r: AccuracyReport, on canvas: Canvas) {
        let maxT = r.errors.map(\.seconds).max() ?? 1, maxE = r.errors.map(\.error).max() ?? 1
        let frame = PlotFrame(size: size, x: 0...max(maxT, 1e-3), y: 0...max(maxE * 1.1, 1e-3))
        let kind = r.site.dimensions == 3 ? "3-D" : "horizontal"
        frame.drawAxes(on: canvas, title: "Position error over time (\(kind))", xLabel: "Time since the first position (s)",
                       yLabel: "Position error (m)")
        let tags = Array(Set(r.errors.map(\.tag))).sorted()
        series(tags, { tag in r.errors.filter { $0.tag == tag }.map { ($0.seconds, $0.error) } }, frame: frame, on: canvas)
        var legend = Legend()
        tagLegend(tags, into: &legend)
        if let rmse = r.metrics?.rmse, rmse.isFinite {
            let y = frame.pixel(0, rmse).y
            canvas.line(from: Point(frame.left, y), to: Point(frame.left + frame.width, y), color: .black, width: 1.5, dash: 6, data: true)
            legend.add(.line(.black, width: 1.5, dash: 4), "RMSE " + TextFormat.fixed(rmse, 3) + " m")
        }
        legend.draw(on: canvas, x: frame.legendX, y: frame.top)
    }

    /// The empirical CDF of the errors, with the median and the 95th percentile marked.
    public static func errorCDF(_ r: AccuracyReport, on canvas: Canvas) {
        let sorted = r.errors.map(\.error).sorted()
        let maxE = SiteMetrics.percentile(sorted: sorted, 0.995)
        let frame = PlotFrame(size: size, x: 0...max(maxE.isFinite ? maxE * 1.05 : 1, 1e-3), y: 0...100)
        frame.drawAxes(on: canvas, title: "Cumulative distribution of the position error", xLabel: "Position error (m)",
                       yLabel: "Positions within the error (%)")
        let n = Double(sorted.count)
        let pts = thin(Array(sorted.enumerated())).map { frame.pixel(min($0.element, frame.x.upperBound), 100 * Double($0.offset + 1) / n) }
        canvas.polyline(pts, color: PlotFrame.palette[0], width: 2)
        var marks: [(Point, String)] = []
        for (q, name) in [(0.5, "Median"), (0.95, "95th percentile")] {
            let v = SiteMetrics.percentile(sorted: sorted, q)
            guard v.isFinite else { continue }
            let p = frame.pixel(v, 100 * q)
            canvas.line(from: Point(p.x, frame.top + frame.height), to: p, color: .black, width: 1, dash: 4, data: true)
            canvas.disc(center: p, radius: 3.5, fill: .black, outline: .white)
            marks.append((p, "\(name) \(TextFormat.fixed(v, 3)) m"))
        }
        for (p, text) in marks { canvas.placeLabel(text, near: p, clearance: 5, size: 12, within: frame.box.inset(3)) }
        var legend = Legend()
        legend.add(.line(PlotFrame.palette[0], width: 2, dash: 0), "All tags (\(sorted.count))")
        legend.add(.disc(.black), "Median, 95th pct.")
        legend.draw(on: canvas, x: frame.legendX, y: frame.top)
    }

    /// The legend of the track map.
    static func trackLegend(_ r: AccuracyReport) -> Legend {
        var legend = Legend()
        tagLegend(Array(r.estimated.keys).sorted(), into: &legend)
        if r.hasTruth { legend.add(.line(RGB(175, 175, 175), width: 4, dash: 0), "Truth") }
        SiteOverlay.legend(r.site, into: &legend)
        return legend
    }

    /// The layout of the track map (its size).
    public static func trackMapLayout(_ r: AccuracyReport) -> MapLayout {
        MapLayout(bounds: r.site.bounds, maxMapSize: (760, 520), legendWidth: 190, legendHeight: trackLegend(r).height)
    }

    /// The tracks on the site map: truth in grey, estimates coloured per tag, anchors and zones.
    public static func trackMap(_ r: AccuracyReport, on canvas: Canvas) {
        let layout = trackMapLayout(r)
        SiteOverlay.drawFrame(r.site, layout, on: canvas)
        SiteOverlay.drawCones(r.site, layout, on: canvas, coneLength: 3)
        SiteOverlay.drawZones(r.site, layout, on: canvas)
        for tag in r.truth.keys.sorted() {
            canvas.polyline(thin(r.truth[tag]!).map { layout.pixel($0.x, $0.y) }, color: RGB(175, 175, 175), width: 4)
        }
        for (k, tag) in Array(r.estimated.keys).sorted().enumerated() {
            canvas.polyline(thin(r.estimated[tag]!).map { layout.pixel($0.x, $0.y) }, color: tagColor(k), width: 1.2)
        }
        SiteOverlay.drawAnchors(r.site, layout, on: canvas)
        SiteOverlay.labelAnchors(r.site, layout, on: canvas, halo: true)
        SiteOverlay.labelZones(r.site, layout, on: canvas, halo: false)
        canvas.label(r.hasTruth ? "\(r.site.name): estimated tracks and the truth" : "\(r.site.name): estimated tracks",
                     x: layout.left, y: 30, size: 16, bold: true)
        trackLegend(r).draw(on: canvas, x: layout.legendX, y: layout.top)
    }

    /// Bars per anchor: a value as a bar from zero, an optional ± whisker, the anchor id (and
    /// technology) under each; bars coloured by technology.
    static func anchorBars(_ rows: [(anchor: String, technology: Technology, value: Double, whisker: Double?)],
                           frame: PlotFrame, on canvas: Canvas) {
        let zero = frame.pixel(0, 0).y
        canvas.line(from: Point(frame.left, zero), to: Point(frame.left + frame.width, zero), color: .black, width: 1)
        let slot = frame.width / Double(max(rows.count, 1))
        let twoTechs = Set(rows.map(\.anchor)).count < rows.count
        for (k, b) in rows.enumerated() {
            let cx = frame.left + (Double(k) + 0.5) * slot
            let top = frame.pixel(0, max(b.value, 0)).y, bottom = frame.pixel(0, min(b.value, 0)).y
            let color = b.technology == .cs ? SiteOverlay.csColor : SiteOverlay.uwbColor
            canvas.fill(Rect(x: cx - slot * 0.3, y: top, width: slot * 0.6, height: max(bottom - top, 1)), color: color,
                        alpha: 0.85, data: true)
            if let w = b.whisker {
                let a = frame.pixel(0, b.value + w).y, z = frame.pixel(0, b.value - w).y
                canvas.line(from: Point(cx, a), to: Point(cx, z), color: .black, width: 1.5, data: true)
                canvas.line(from: Point(cx - 5, a), to: Point(cx + 5, a), color: .black, width: 1.5, data: true)
                canvas.line(from: Point(cx - 5, z), to: Point(cx + 5, z), color: .black, width: 1.5, data: true)
            }
            canvas.label(b.anchor, x: cx, y: frame.top + frame.height + 16, size: 11, align: 0)
            if twoTechs { canvas.label(b.technology == .cs ? "CS" : "UWB", x: cx, y: frame.top + frame.height + 29, size: 9, align: 0) }
        }
    }

    /// The technology legend of anchor bars.
    static func barLegend(_ rows: [Technology], whisker: String?) -> Legend {
        var legend = Legend()
        legend.heading("Anchors")
        if rows.contains(.uwb) { legend.add(.box(SiteOverlay.uwbColor), "UWB") }
        if rows.contains(.cs) { legend.add(.box(SiteOverlay.csColor), "Channel Sounding") }
        if let whisker { legend.add(.line(.black, width: 1.5, dash: 0), whisker) }
        return legend
    }

    /// Per-anchor range residuals (measured − distance): bias as a bar, ± 1 std as a whisker.
    public static func residuals(_ r: AccuracyReport, on canvas: Canvas) {
        let rows = r.residuals
        let lo = min(rows.map { $0.bias - $0.std }.min() ?? -0.1, -0.05)
        let hi = max(rows.map { $0.bias + $0.std }.max() ?? 0.1, 0.05)
        let frame = PlotFrame(size: size, x: 0...Double(max(rows.count, 1)), y: (lo * 1.15)...(hi * 1.15))
        frame.drawAxes(on: canvas, title: r.hasTruth ? "Range residuals per anchor, against the truth"
                                                     : "Range residuals per anchor, against the estimated tracks",
                       xLabel: "Anchor", yLabel: r.hasTruth ? "Measured − true distance (m)" : "Measured − estimated distance (m)",
                       xTicks: false)
        anchorBars(rows.map { ($0.anchor, $0.technology, $0.bias, $0.std) }, frame: frame, on: canvas)
        var legend = barLegend(rows.map(\.technology), whisker: "± 1 std")
        legend.add(.note, "Bar: bias (Huber mean)")
        legend.draw(on: canvas, x: frame.legendX, y: frame.top)
    }

    /// The engine's predicted σ against time, one line per tag.
    public static func predictedAccuracy(_ r: AccuracyReport, on canvas: Canvas) {
        let sorted = r.predicted.map(\.sigma).sorted()
        let top = SiteMetrics.percentile(sorted: sorted, 0.995)
        let maxT = r.predicted.map(\.seconds).max() ?? 1
        let frame = PlotFrame(size: size, x: 0...max(maxT, 1e-3), y: 0...max(top.isFinite ? top * 1.15 : 1, 1e-3))
        frame.drawAxes(on: canvas, title: "Predicted accuracy: the engine's 1-σ over time", xLabel: "Time since the first position (s)",
                       yLabel: "Predicted 1-σ (m)")
        let tags = Array(Set(r.predicted.map(\.tag))).sorted()
        series(tags, { tag in r.predicted.filter { $0.tag == tag }.map { ($0.seconds, min($0.sigma, frame.y.upperBound)) } },
               frame: frame, on: canvas)
        var legend = Legend()
        tagLegend(tags, into: &legend)
        let (median, p95) = r.predictedSigma
        if median.isFinite {
            legend.add(.note, "Median " + TextFormat.fixed(median, 3) + " m")
            legend.add(.note, "95th pct. " + TextFormat.fixed(p95, 3) + " m")
        }
        legend.draw(on: canvas, x: frame.legendX, y: frame.top)
    }

    /// Each anchor's normalised innovation RMS (1 or less: it agrees with the tags' filters), with the
    /// share of its ranges rejected written above the bar.
    public static func anchorHealth(_ r: AccuracyReport, on canvas: Canvas) {
        let rows = r.anchors.map { a in
            (anchor: a.anchor, technology: r.site.anchor(a.anchor)?.technologies.first ?? Technology.uwb,
             value: a.health.innovationRMS ?? 0, whisker: Double?.none)
        }
        let hi = max(rows.map(\.value).max() ?? 1, 1.2)
        let frame = PlotFrame(size: size, x: 0...Double(max(rows.count, 1)), y: 0...(hi * 1.2))
        frame.drawAxes(on: canvas, title: "Anchor health", xLabel: "Anchor", yLabel: "Normalised innovation RMS (σ)",
                       xTicks: false)
        let one = frame.pixel(0, 1).y
        canvas.line(from: Point(frame.left, one), to: Point(frame.left + frame.width, one), color: RGB(90, 90, 90), width: 1,
                    dash: 5)
        anchorBars(rows, frame: frame, on: canvas)
        let slot = frame.width / Double(max(rows.count, 1))
        for (k, a) in r.anchors.enumerated() where a.health.ranges > 0 {
            let share = Double(a.health.rejected) / Double(a.health.ranges)
            let p = Point(frame.left + (Double(k) + 0.5) * slot, frame.pixel(0, rows[k].value).y)
            canvas.label(TextFormat.percent(share) + " %", x: p.x, y: p.y - 5, size: 10, align: 0)
        }
        var legend = barLegend(rows.map(\.technology), whisker: nil)
        legend.add(.line(RGB(90, 90, 90), width: 1, dash: 4), "Agrees with its σ (1)")
        legend.add(.note, "Above a bar: rejected")
        legend.add(.note, "ranges (%)")
        legend.draw(on: canvas, x: frame.legendX, y: frame.top)
    }
}
