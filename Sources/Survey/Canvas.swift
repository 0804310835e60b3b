internal import CCairo

/// Where figures are drawn: one cairo surface (PNG, SVG or PDF) and its drawing context, owned here
/// and freed in `deinit`. Coordinates are pixels (points in SVG and PDF), x right, y down.
///
/// The canvas remembers what it drew: the boxes and segments of data marks (`marks`, `segments`)
/// and the boxes of the labels (`labels`), so that `placeLabel` can put a label where it covers
/// neither, and tests can check the layout.
public final class Canvas {
    /// The figure's size, pixels.
    public let width: Double, height: Double
    /// The output format.
    public let format: ImageFormat
    /// Boxes of the data marks drawn so far (anchors, bars, points).
    public private(set) var marks: [Rect] = []
    /// Segments of the data lines drawn so far (tracks, curves, outlines).
    public private(set) var segments: [(Point, Point)] = []
    /// Boxes of the labels drawn so far, with their text.
    public private(set) var labels: [(text: String, box: Rect)] = []

    /// The font of every label.
    public static let fontFamily = "DejaVu Sans"

    private let surface: OpaquePointer
    private let cr: OpaquePointer
    private let sink = ByteSink()
    private var finished = false

    /// A white canvas.
    /// - Parameters: size in pixels (rounded up, at least 1) and the output format.
    public init(width: Double, height: Double, format: ImageFormat) throws(RenderError) {
        self.width = max(1, width.rounded(.up)); self.height = max(1, height.rounded(.up))
        self.format = format
        let opaque = Unmanaged.passUnretained(sink).toOpaque()
        let made: OpaquePointer?
        switch format {
        case .png: made = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(self.width), Int32(self.height))
        case .svg: made = cairo_svg_surface_create_for_stream(ByteSink.write, opaque, self.width, self.height)
        case .pdf: made = cairo_pdf_surface_create_for_stream(ByteSink.write, opaque, self.width, self.height)
        }
        guard let made else { throw .cairo(status: "no surface", context: "creating a \(format) surface") }
        let status = cairo_surface_status(made)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(made)
            throw .cairo(status: String(cString: cairo_status_to_string(status)), context: "creating a \(format) surface")
        }
        surface = made
        cr = cairo_create(made)
        cairo_select_font_face(cr, Self.fontFamily, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// Ends the drawing and returns the file's bytes. Call once.
    public func finish() throws(RenderError) -> [UInt8] {
        precondition(!finished, "Canvas.finish called twice")
        finished = true
        let opaque = Unmanaged.passUnretained(sink).toOpaque()
        cairo_surface_flush(surface)
        if format == .png {
            let status = cairo_surface_write_to_png_stream(surface, ByteSink.write, opaque)
            guard status == CAIRO_STATUS_SUCCESS else {
                throw .cairo(status: String(cString: cairo_status_to_string(status)), context: "writing the PNG")
            }
        } else {
            cairo_surface_finish(surface)
        }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw .cairo(status: String(cString: cairo_status_to_string(status)), context: "writing the \(format)")
        }
        return sink.bytes
    }

    // MARK: shapes

    private func setColor(_ c: RGB, alpha: Double = 1) {
        cairo_set_source_rgba(cr, Double(c.r) / 255, Double(c.g) / 255, Double(c.b) / 255, alpha)
    }

    /// A filled rectangle, optionally translucent (alpha 0…1); `data` records it as a data mark.
    public func fill(_ r: Rect, color: RGB, alpha: Double = 1, data: Bool = false) {
        setColor(color, alpha: alpha)
        cairo_rectangle(cr, r.x, r.y, r.width, r.height)
        cairo_fill(cr)
        if data { marks.append(r) }
    }

    /// A straight line; `dash` is the dash length in pixels (0: solid); `data` records it.
    public func line(from a: Point, to b: Point, color: RGB, width: Double, dash: Double = 0, data: Bool = false) {
        setColor(color)
        cairo_set_line_width(cr, width)
        if dash > 0 { var d = [dash, dash * 0.6]; cairo_set_dash(cr, &d, 2, 0) }
        cairo_move_to(cr, a.x, a.y)
        cairo_line_to(cr, b.x, b.y)
        cairo_stroke(cr)
        if dash > 0 { cairo_set_dash(cr, nil, 0, 0) }
        if data { segments.append((a, b)) }
    }

    /// A filled disc of `radius` pixels with an outline; recorded as a data mark.
    public func disc(center: Point, radius: Double, fill: RGB, outline: RGB, data: Bool = true) {
        cairo_new_path(cr)
        cairo_arc(cr, center.x, center.y, radius, 0, 2 * Double.pi)
        setColor(fill)
        cairo_fill_preserve(cr)
        setColor(outline)
        cairo_set_line_width(cr, 1.5)
        cairo_stroke(cr)
        if data { marks.append(Rect(x: center.x - radius - 1, y: center.y - radius - 1, width: 2 * radius + 2, height: 2 * radius + 2)) }
    }

    /// A closed polygon, filled (optionally translucent) and/or outlined; `data` records its edges.
    public func polygon(_ points: [Point], fill: RGB?, alpha: Double = 1, outline: RGB?, width: Double = 1,
                        data: Bool = false) {
        guard points.count >= 2 else { return }
        path(points, closed: true)
        if let fill { setColor(fill, alpha: alpha); cairo_fill_preserve(cr) }
        if let outline { setColor(outline); cairo_set_line_width(cr, width); cairo_stroke_preserve(cr) }
        cairo_new_path(cr)
        if data { for i in points.indices { segments.append((points[i], points[(i + 1) % points.count])) } }
    }

    /// An open polyline; `data` records its segments.
    public func polyline(_ points: [Point], color: RGB, width: Double, data: Bool = true) {
        guard points.count >= 2 else { return }
        path(points, closed: false)
        setColor(color)
        cairo_set_line_width(cr, width)
        cairo_stroke(cr)
        if data { for i in 1..<points.count { segments.append((points[i - 1], points[i])) } }
    }

    private func path(_ points: [Point], closed: Bool) {
        cairo_new_path(cr)
        cairo_move_to(cr, points[0].x, points[0].y)
        for p in points.dropFirst() { cairo_line_to(cr, p.x, p.y) }
        if closed { cairo_close_path(cr) }
    }

    /// Draws `body` clipped to a box.
    public func clipped(to r: Rect, _ body: () -> Void) {
        cairo_save(cr)
        cairo_rectangle(cr, r.x, r.y, r.width, r.height)
        cairo_clip(cr)
        body()
        cairo_restore(cr)
    }

    // MARK: text

    /// The box of `text` at `size` pixels with its baseline at y = 0 and its left edge at x = 0.
    public func measure(_ text: String, size: Double, bold: Bool = false) -> Rect {
        font(size, bold)
        var fe = cairo_font_extents_t(), te = cairo_text_extents_t()
        cairo_font_extents(cr, &fe)
        cairo_text_extents(cr, text, &te)
        return Rect(x: 0, y: -fe.ascent, width: te.x_advance, height: fe.ascent + fe.descent)
    }

    private func font(_ size: Double, _ bold: Bool) {
        cairo_select_font_face(cr, Self.fontFamily, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
    }

    /// The box a label would take with its baseline at `y`; `align` is -1 (left), 0 (centre), 1 (right).
    public func labelBox(_ text: String, x: Double, y: Double, size: Double, align: Int, bold: Bool = false) -> Rect {
        let m = measure(text, size: size, bold: bold)
        let left = align < 0 ? x : (align == 0 ? x - m.width / 2 : x - m.width)
        return Rect(x: left, y: y + m.y, width: m.width, height: m.height)
    }

    /// Draws a label with its baseline at `y` and records its box; `halo` paints a translucent white
    /// box under it (for labels over a coloured map). Returns the box.
    @discardableResult
    public func label(_ text: String, x: Double, y: Double, size: Double, align: Int = -1, color: RGB = .black,
                      bold: Bool = false, halo: Bool = false) -> Rect {
        let box = labelBox(text, x: x, y: y, size: size, align: align, bold: bold)
        if halo { fill(box.inset(-2), color: .white, alpha: 0.8) }
        font(size, bold)
        setColor(color)
        cairo_move_to(cr, box.x, y)
        cairo_show_text(cr, text)
        cairo_new_path(cr)
        labels.append((text, box))
        return box
    }

    /// Draws a label turned a quarter anticlockwise (reading upwards), centred on (x, y) along its
    /// length, with its baseline at x. Returns its (upright) box.
    @discardableResult
    public func verticalLabel(_ text: String, x: Double, y: Double, size: Double, color: RGB = .black) -> Rect {
        let m = measure(text, size: size)
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_rotate(cr, -Double.pi / 2)
        font(size, false)
        setColor(color)
        cairo_move_to(cr, -m.width / 2, 0)
        cairo_show_text(cr, text)
        cairo_new_path(cr)
        cairo_restore(cr)
        let box = Rect(x: x + m.y, y: y - m.width / 2, width: m.height, height: m.width)
        labels.append((text, box))
        return box
    }

    /// Whether a box is free: inside `within`, and clear of every data mark, data segment and label
    /// (by `gap` pixels).
    public func isFree(_ box: Rect, within: Rect, gap: Double = 1) -> Bool {
        guard within.contains(box) else { return false }
        let b = box.inset(-gap)
        if marks.contains(where: { $0.intersects(b) }) { return false }
        if labels.contains(where: { $0.box.intersects(b) }) { return false }
        return !segments.contains { b.intersects(segment: $0.0, $0.1) }
    }

    /// Draws a label at the first free place around `point` (right, left, above, below, the corners,
    /// then farther out), inside `within`; when no place is free, at the one that covers the fewest
    /// marks. Returns the box.
    @discardableResult
    public func placeLabel(_ text: String, near point: Point, clearance: Double, size: Double, within: Rect,
                           color: RGB = .black, halo: Bool = false) -> Rect {
        let m = measure(text, size: size)
        var best: (Rect, Int)? = nil
        if clearance == 0 {
            let centred = Rect(x: point.x - m.width / 2, y: point.y - m.height / 2, width: m.width, height: m.height)
            if isFree(centred, within: within) {
                return label(text, x: centred.x, y: centred.y - m.y, size: size, color: color, halo: halo)
            }
        }
        for step in 0..<4 {
            let d = clearance + 2 + Double(step) * (m.height + 2)
            let w = m.width, h = m.height, px = point.x, py = point.y, e = d * 0.7
            // The top-left corner of each candidate box: right, left, above, below, then the corners.
            let places: [(Double, Double)] = [
                (px + d, py - h / 2), (px - d - w, py - h / 2), (px - w / 2, py - d - h), (px - w / 2, py + d),
                (px + e, py - e - h), (px - e - w, py - e - h), (px + e, py + e), (px - e - w, py + e),
            ]
            for (left, top) in places {
                let box = Rect(x: left, y: top, width: w, height: h)
                if isFree(box, within: within) { return label(text, x: left, y: top - m.y, size: size, color: color, halo: halo) }
                if within.contains(box) {
                    let hits = marks.filter { $0.intersects(box) }.count + labels.filter { $0.box.intersects(box) }.count
                        + segments.filter { box.intersects(segment: $0.0, $0.1) }.count
                    if best == nil || hits < best!.1 { best = (box, hits) }
                }
            }
        }
        let box = best?.0 ?? Rect(x: point.x + clearance + 2, y: point.y - m.height / 2, width: m.width, height: m.height)
        return label(text, x: box.x, y: box.y - m.y, size: size, color: color, halo: halo)
    }
}

/// Collects the bytes cairo writes (the PNG, SVG or PDF stream).
private final class ByteSink {
    var bytes: [UInt8] = []

    /// cairo's write callback: appends `length` bytes to the sink behind `closure`.
    static let write: cairo_write_func_t = { closure, data, length in
        guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
        return CAIRO_STATUS_SUCCESS
    }
}
