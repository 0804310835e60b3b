/// Draws a coverage map: the cells coloured by σ, the zones, the anchors with their direction cones,
/// the axes in metres, a title, and at the right the colour bar and the anchors' legend.
public enum CoverageFigure {
    /// Height of the colour bar, pixels.
    static let barHeight = 240.0, barWidth = 18.0
    /// From the legend column's top to the colour bar's top (the heading), pixels.
    static let barTop = 24.0

    /// The legend of the anchors shown under the colour bar.
    static func anchorLegend(_ map: CoverageMap, highlight: Set<String>) -> Legend {
        var legend = Legend()
        SiteOverlay.legend(map.site, into: &legend, highlight: highlight)
        return legend
    }

    /// The height of the whole legend column, pixels.
    static func legendHeight(_ map: CoverageMap, highlight: Set<String>) -> Double {
        barTop + barHeight + 46 + anchorLegend(map, highlight: highlight).height
    }

    /// The layout of a map's figure.
    public static func layout(_ map: CoverageMap, highlight: Set<String> = []) -> MapLayout {
        MapLayout(bounds: map.site.bounds, legendWidth: 200, legendHeight: legendHeight(map, highlight: highlight))
    }

    /// Draws the whole figure on a canvas of `layout(map)`'s size.
    /// - Parameters:
    ///   - title: the headline; nil for the default naming the site and the tag height.
    ///   - highlight: anchor ids drawn in a highlight colour (e.g. suggested anchors).
    public static func draw(_ map: CoverageMap, on canvas: Canvas, title: String? = nil,
                            scale: ColorScale = ColorScale(), highlight: Set<String> = []) {
        let layout = layout(map, highlight: highlight)
        let s = layout.scale * map.resolution
        let clip = layout.map
        for r in 0..<map.rows {
            for c in 0..<map.columns {
                let (x, y) = map.center(column: c, row: r)
                let p = layout.pixel(x - map.resolution / 2, y + map.resolution / 2)
                // Cells at the far edges stop at the site's bounds; a hair of overlap hides seams.
                let x1 = min(p.x + s + 0.3, clip.maxX), y1 = min(p.y + s + 0.3, clip.maxY)
                canvas.fill(Rect(x: p.x, y: p.y, width: x1 - p.x, height: y1 - p.y),
                            color: scale.color(map.cells[r * map.columns + c].sigma))
            }
        }
        SiteOverlay.drawFrame(map.site, layout, on: canvas)
        SiteOverlay.drawCones(map.site, layout, on: canvas, coneLength: 5)
        SiteOverlay.drawZones(map.site, layout, on: canvas)
        SiteOverlay.drawAnchors(map.site, layout, on: canvas, highlight: highlight)
        SiteOverlay.labelAnchors(map.site, layout, on: canvas, halo: true)
        SiteOverlay.labelZones(map.site, layout, on: canvas, halo: true)
        let head = title ?? "\(map.site.name): expected 1-σ horizontal accuracy at tag height z = \(TextFormat.fixed(map.height, 2)) m"
        canvas.label(head, x: layout.left, y: 30, size: 16, bold: true)
        let bottom = drawColorBar(layout, scale: scale, on: canvas)
        anchorLegend(map, highlight: highlight).draw(on: canvas, x: layout.legendX, y: bottom + 20)
    }

    /// The colour bar: σ from the bottom (good) to the top (bad) on a logarithmic axis, ticks in
    /// metres, and a grey "no fix" swatch underneath. Returns the bottom edge of the swatch.
    @discardableResult
    public static func drawColorBar(_ layout: MapLayout, scale: ColorScale, on canvas: Canvas) -> Double {
        let x = layout.legendX, top = layout.top + barTop, h = barHeight, w = barWidth
        canvas.label("Expected σ", x: x, y: layout.top + 12, size: Legend.textSize, bold: true)
        let steps = Int(h / 2)
        for i in 0..<steps {
            let t = 1 - (Double(i) + 0.5) / Double(steps)
            canvas.fill(Rect(x: x, y: top + h * Double(i) / Double(steps), width: w, height: h / Double(steps) + 0.4),
                        color: scale.color(atFraction: t))
        }
        canvas.polygon([Point(x, top), Point(x + w, top), Point(x + w, top + h), Point(x, top + h)], fill: nil,
                       outline: .black, width: 1)
        for tick in scale.ticks {
            let y = top + h * (1 - scale.fraction(tick))
            canvas.line(from: Point(x + w, y), to: Point(x + w + 4, y), color: .black, width: 1)
            canvas.label(TextFormat.fixed(tick, tick < 0.1 ? 2 : 1) + " m", x: x + w + 7, y: y + 4, size: SiteOverlay.tickSize)
        }
        let swatch = top + h + 12
        canvas.fill(Rect(x: x, y: swatch, width: w, height: 14), color: ColorScale.noFix)
        canvas.label("No fix possible", x: x + w + 7, y: swatch + 11, size: SiteOverlay.tickSize)
        return swatch + 14
    }

    /// The figure in a format (PNG, SVG or PDF).
    public static func render(_ map: CoverageMap, format: ImageFormat, title: String? = nil,
                              highlight: Set<String> = []) throws(RenderError) -> [UInt8] {
        let canvas = try canvas(map, format: format, title: title, highlight: highlight)
        return try canvas.finish()
    }

    /// The figure drawn on a new canvas, not yet finished (tests look at its layout).
    public static func canvas(_ map: CoverageMap, format: ImageFormat, title: String? = nil,
                              highlight: Set<String> = []) throws(RenderError) -> Canvas {
        let l = layout(map, highlight: highlight)
        let canvas = try Canvas(width: l.width, height: l.height, format: format)
        draw(map, on: canvas, title: title, highlight: highlight)
        return canvas
    }
}
