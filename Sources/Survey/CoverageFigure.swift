/// Draws a coverage map: the cells coloured by σ, the zones, the anchors with their direction cones,
/// a title and the colour-bar legend.
public enum CoverageFigure {
    /// The layout of a map's figure.
    public static func layout(_ map: CoverageMap) -> MapLayout { MapLayout(bounds: map.site.bounds) }

    /// Draws the whole figure on a canvas of `layout(map)`'s size.
    /// - Parameters:
    ///   - title: the headline; nil for the default naming the site and the tag height.
    ///   - highlight: anchor ids drawn in a highlight colour (e.g. suggested anchors).
    public static func draw<C: Canvas>(_ map: CoverageMap, on canvas: inout C, title: String? = nil,
                                       scale: ColorScale = ColorScale(), highlight: Set<String> = []) {
        let layout = layout(map)
        let s = layout.scale * map.resolution
        for r in 0..<map.rows {
            for c in 0..<map.columns {
                let (x, y) = map.center(column: c, row: r)
                let p = layout.pixel(x - map.resolution / 2, y + map.resolution / 2)
                canvas.fill(x: p.0, y: p.1, width: s, height: s, color: scale.color(map.cells[r * map.columns + c].sigma),
                            alpha: 1)
            }
        }
        SiteOverlay.drawFrame(map.site, layout, on: &canvas)
        SiteOverlay.drawZones(map.site, layout, on: &canvas)
        SiteOverlay.drawAnchors(map.site, layout, on: &canvas, highlight: highlight)
        let head = title ?? "\(map.site.name): expected 1-σ horizontal accuracy at z = \(TextFormat.fixed(map.height, 2)) m"
        canvas.label(head, x: layout.left, y: 26, size: 16, align: -1, color: .black)
        drawLegend(layout, scale: scale, on: &canvas)
    }

    /// The colour bar: σ from the bottom (good) to the top (bad), with ticks in metres, and a grey
    /// "no fix" swatch underneath.
    public static func drawLegend<C: Canvas>(_ layout: MapLayout, scale: ColorScale, on canvas: inout C) {
        let x = legendX(layout), top = layout.top, h = max(layout.mapHeight - 30, 60), w = 18.0
        let steps = max(Int(h), 2)
        for i in 0..<steps {
            let t = 1 - (Double(i) + 0.5) / Double(steps)
            canvas.fill(x: x, y: top + h * Double(i) / Double(steps), width: w, height: h / Double(steps) + 0.5,
                        color: scale.color(atFraction: t), alpha: 1)
        }
        canvas.polygon([(x, top), (x + w, top), (x + w, top + h), (x, top + h)], fill: nil, alpha: 1,
                       outline: .black, width: 1)
        for tick in scale.ticks {
            let y = top + h * (1 - scale.fraction(tick))
            canvas.stroke(from: (x + w, y), to: (x + w + 4, y), color: .black, width: 1)
            canvas.label(TextFormat.fixed(tick, tick < 0.1 ? 2 : 1) + " m", x: x + w + 7, y: y + 4, size: 11, align: -1,
                         color: .black)
        }
        canvas.label("σ", x: x + w / 2, y: top - 6, size: 12, align: 0, color: .black)
        let swatch = top + h + 10
        canvas.fill(x: x, y: swatch, width: w, height: 12, color: ColorScale.noFix, alpha: 1)
        canvas.label("no fix", x: x + w + 7, y: swatch + 10, size: 11, align: -1, color: .black)
    }

    /// The left edge of the legend's colour bar, pixels.
    public static func legendX(_ layout: MapLayout) -> Double { layout.left + layout.mapWidth + 24 }

    /// The figure as SVG bytes.
    public static func svg(_ map: CoverageMap, title: String? = nil, highlight: Set<String> = []) -> [UInt8] {
        let l = layout(map)
        var doc = SVGDocument(width: l.width, height: l.height)
        doc.rect(0, 0, l.width, l.height, fill: "#fff")
        draw(map, on: &doc, title: title, highlight: highlight)
        return doc.bytes()
    }

    /// The figure as an RGB raster (for PNG).
    public static func raster(_ map: CoverageMap, title: String? = nil, highlight: Set<String> = []) -> Raster {
        let l = layout(map)
        var image = Raster(width: Int(l.width), height: Int(l.height))
        draw(map, on: &image, title: title, highlight: highlight)
        return image
    }
}
