import CCairo
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import Survey

/// A PNG decoded by cairo (an independent reader of what the figures wrote): its size and pixels.
final class DecodedPNG {
    let width: Int, height: Int
    private let surface: OpaquePointer

    /// nil when the bytes are not a PNG.
    init?(_ bytes: [UInt8]) {
        final class Source { var bytes: [UInt8]; var at = 0; init(_ b: [UInt8]) { bytes = b } }
        let source = Source(bytes)
        let read: cairo_read_func_t = { closure, data, length in
            let s = Unmanaged<Source>.fromOpaque(closure!).takeUnretainedValue()
            guard let data, s.at + Int(length) <= s.bytes.count else { return CAIRO_STATUS_READ_ERROR }
            for i in 0..<Int(length) { data[i] = s.bytes[s.at + i] }
            s.at += Int(length)
            return CAIRO_STATUS_SUCCESS
        }
        let made = withExtendedLifetime(source) {
            cairo_image_surface_create_from_png_stream(read, Unmanaged.passUnretained(source).toOpaque())
        }
        guard let made else { return nil }
        guard cairo_surface_status(made) == CAIRO_STATUS_SUCCESS else { cairo_surface_destroy(made); return nil }
        surface = made
        width = Int(cairo_image_surface_get_width(made)); height = Int(cairo_image_surface_get_height(made))
    }

    deinit { cairo_surface_destroy(surface) }

    /// The colour at a pixel.
    func pixel(_ x: Int, _ y: Int) -> RGB {
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        let word = data.advanced(by: y * stride + 4 * x).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
        return RGB(UInt8((word >> 16) & 0xff), UInt8((word >> 8) & 0xff), UInt8(word & 0xff))
    }
}

/// The root element of an SVG document and its attributes, from Foundation's XML parser; nil when
/// the bytes do not parse.
func parseSVGRoot(_ bytes: [UInt8]) -> (name: String, attributes: [String: String], elements: Int)? {
    final class Root: NSObject, XMLParserDelegate {
        var name: String?, attributes: [String: String] = [:], elements = 0
        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            elements += 1
            if name == nil { name = elementName; attributes = attributeDict }
        }
    }
    let parser = XMLParser(data: Data(bytes))
    let root = Root()
    parser.delegate = root
    guard parser.parse(), let name = root.name else { return nil }
    return (name, root.attributes, root.elements)
}

/// Every label of a canvas that covers a data mark, a data segment, or another label.
func layoutViolations(_ canvas: Canvas) -> [String] {
    var out: [String] = []
    let labels = canvas.labels
    for (i, l) in labels.enumerated() {
        if let m = canvas.marks.first(where: { $0.intersects(l.box) }) { out.append("'\(l.text)' \(l.box) covers mark \(m)") }
        if let s = canvas.segments.first(where: { l.box.intersects(segment: $0.0, $0.1) }) {
            out.append("'\(l.text)' \(l.box) covers segment \(s.0)–\(s.1)")
        }
        for o in labels[(i + 1)...] where o.box.intersects(l.box) { out.append("'\(l.text)' \(l.box) covers label '\(o.text)' \(o.box)") }
    }
    return out
}
