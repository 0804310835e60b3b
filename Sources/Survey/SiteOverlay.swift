#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Positioning
import Numerics

/// Draws the parts of a site on a map: the frame with metre ticks and axis titles, zones, anchors with
/// their direction cones, and the legend entries for them.
public enum SiteOverlay {
    static let uwbColor = RGB(31, 78, 156), csColor = RGB(196, 90, 20), dualColor = RGB(20, 20, 20)
    static let highlightColor = RGB(230, 0, 120)
    static let zoneColor = RGB(40, 40, 40), coneColor = RGB(31, 78, 156)
    /// Anchor disc radius, pixels.
    static let anchorRadius = 5.5
    /// Size of tick labels, pixels.
    static let tickSize = 11.0

    /// The colour of an anchor by its technologies.
    static func color(_ a: Anchor) -> RGB {
        a.technologies.count > 1 ? dualColor : (a.technologies.first == .cs ? csColor : uwbColor)
    }

    /// The frame, the ticks every 1, 2, 5, 10 or 20 m on both axes, and the axis titles "x (m)", "y (m)".
    public static func drawFrame(_ site: Site, _ layout: MapLayout, on canvas: Canvas) {
        let b = site.bounds
        let corners = [layout.pixel(b.min.x, b.min.y), layout.pixel(b.max.x, b.min.y),
                       layout.pixel(b.max.x, b.max.y), layout.pixel(b.min.x, b.max.y)]
        canvas.polygon(corners, fill: nil, outline: .black, width: 1)
        let span = max(b.max.x - b.min.x, b.max.y - b.min.y)
        let step = span > 60 ? 20.0 : (span > 30 ? 5.0 : (span > 12 ? 2.0 : 1.0))
        let decimals = 0
        var x = (b.min.x / step).rounded(.up) * step
        while x <= b.max.x + 1e-9 {
            let p = layout.pixel(x, b.min.y)
            canvas.line(from: p, to: Point(p.x, p.y + 5), color: .black, width: 1)
            canvas.label(TextFormat.fixed(x, decimals), x: p.x, y: p.y + 18, size: tickSize, align: 0)
            x += step
        }
        var y = (b.min.y / step).rounded(.up) * step
        while y <= b.max.y + 1e-9 {
            let p = layout.pixel(b.min.x, y)
            canvas.line(from: Point(p.x - 5, p.y), to: p, color: .black, width: 1)
            canvas.label(TextFormat.fixed(y, decimals), x: p.x - 8, y: p.y + 4, size: tickSize, align: 1)
            y += step
        }
        canvas.label("x (m)", x: layout.left + layout.mapWidth / 2, y: layout.top + layout.mapHeight + 40, size: 13, align: 0)
        canvas.verticalLabel("y (m)", x: layout.left - 40, y: layout.top + layout.mapHeight / 2, size: 13)
    }

    /// Zone outlines (data marks, so labels keep off them).
    public static func drawZones(_ site: Site, _ layout: MapLayout, on canvas: Canvas) {
        for z in site.zones where z.polygon.count >= 3 {
            canvas.polygon(z.polygon.map { layout.pixel($0.0, $0.1) }, fill: nil, outline: zoneColor, width: 2, data: true)
        }
    }

    /// Zone names, inside their zone where there is room. Draw after every data mark.
    public static func labelZones(_ site: Site, _ layout: MapLayout, on canvas: Canvas, halo: Bool) {
        for z in site.zones where z.polygon.count >= 3 {
            let pts = z.polygon.map { layout.pixel($0.0, $0.1) }
            let c = Point(pts.map(\.x).reduce(0, +) / Double(pts.count), pts.map(\.y).reduce(0, +) / Double(pts.count))
            var name = z.name
            if let lo = z.minZ, let hi = z.maxZ { name += " (z \(TextFormat.fixed(lo, 1))–\(TextFormat.fixed(hi, 1)) m)" }
            canvas.placeLabel(name, near: c, clearance: 0, size: 12, within: layout.labelArea, color: zoneColor, halo: halo)
        }
    }

    /// The plan view of oriented anchors' fields of view, as translucent cones `coneLength` metres long,
    /// clipped to the map.
    public static func drawCones(_ site: Site, _ layout: MapLayout, on canvas: Canvas, coneLength: Double) {
        canvas.clipped(to: layout.map) { cones(site, layout, on: canvas, coneLength: coneLength) }
    }

    static func cones(_ site: Site, _ layout: MapLayout, on canvas: Canvas, coneLength: Double) {
        for a in site.anchors {
            guard let o = a.orientation else { continue }
            let b = o.toSite(Vec3(1, 0, 0))
            let heading = atan2(b.y, b.x)
            let half = min((a.fieldOfView ?? 2 * .pi) / 2, .pi)
            var pts = [layout.pixel(a.position.x, a.position.y)]
            for i in 0...16 {
                let t = heading - half + 2 * half * Double(i) / 16
                pts.append(layout.pixel(a.position.x + coneLength * cos(t), a.position.y + coneLength * sin(t)))
            }
            canvas.polygon(pts, fill: coneColor, alpha: 0.15, outline: coneColor, width: 0.8)
        }
    }

    /// Anchor discs, coloured by technology (data marks).
    public static func drawAnchors(_ site: Site, _ layout: MapLayout, on canvas: Canvas, highlight: Set<String> = []) {
        for a in site.anchors {
            canvas.disc(center: layout.pixel(a.position.x, a.position.y), radius: anchorRadius,
                        fill: highlight.contains(a.id) ? highlightColor : color(a), outline: .white)
        }
    }

    /// The text by an anchor: its id, and on 3-D sites its mounting height.
    public static func anchorText(_ a: Anchor, site: Site) -> String {
        site.dimensions == 3 ? "\(a.id)  z \(TextFormat.fixed(a.position.z, 1)) m" : a.id
    }

    /// Anchor labels, each at a free place next to its disc. Draw after every data mark.
    public static func labelAnchors(_ site: Site, _ layout: MapLayout, on canvas: Canvas, halo: Bool) {
        for a in site.anchors {
            canvas.placeLabel(anchorText(a, site: site), near: layout.pixel(a.position.x, a.position.y),
                              clearance: anchorRadius, size: 12, within: layout.labelArea, halo: halo)
        }
    }

    /// The legend entries for the site's anchors: the technologies present, direction cones, and the
    /// highlighted (suggested) anchors.
    public static func legend(_ site: Site, into legend: inout Legend, highlight: Set<String> = []) {
        legend.heading("Anchors")
        let techs = Set(site.anchors.filter { !highlight.contains($0.id) }.map { $0.technologies.count > 1 ? "dual" : ($0.technologies.first == .cs ? "cs" : "uwb") })
        if techs.contains("uwb") { legend.add(.disc(uwbColor), "UWB") }
        if techs.contains("cs") { legend.add(.disc(csColor), "Channel Sounding") }
        if techs.contains("dual") { legend.add(.disc(dualColor), "UWB + Channel Sounding") }
        if !highlight.isEmpty { legend.add(.disc(highlightColor), "Suggested (UWB)") }
        if site.anchors.contains(where: { $0.orientation != nil }) { legend.add(.area(coneColor, alpha: 0.25), "Field of view (AoA)") }
        if !site.zones.isEmpty { legend.add(.line(zoneColor, width: 2, dash: 0), "Zone") }
        if site.dimensions == 3 { legend.add(.note, "Labels: id, height z") }
    }
}
