public import Positioning

/// Positions as CSV and GeoJSON, for `sextant history`.
///
/// Numbers are written like the output lines: metres and m/s with 4 decimals, `sigma` and the
/// covariances (m²) with 6 significant digits; a non-finite number is written empty (CSV) or `null`.
public enum PositionExport {
    /// The CSV header line (with its `\n`).
    public static let csvHeader = "t_ns,site,tag,x,y,z,sigma,vx,vy,vz,cxx,cxy,cyy,cxz,cyz,czz,anchors,motion\n"

    /// Appends one CSV row (with its `\n`); `site` and `tag` are quoted when they hold `,`, `"` or a line break.
    /// - Parameters:
    ///   - p: the position.
    ///   - buffer: receives the row.
    public static func appendCSV(_ p: PositionEstimate, to buffer: inout [UInt8]) {
        buffer.appendInteger(p.time)
        buffer.append(UInt8(ascii: ","))
        appendCSVField(p.site, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        appendCSVField(p.tag, to: &buffer)
        for v in [p.position.x, p.position.y, p.position.z] { metres(v, &buffer) }
        significant(p.sigma, &buffer)
        for v in [p.velocity.x, p.velocity.y, p.velocity.z] { metres(v, &buffer) }
        for v in [p.covXX, p.covXY, p.covYY, p.covXZ, p.covYZ, p.covZZ] { significant(v, &buffer) }
        buffer.append(UInt8(ascii: ","))
        buffer.appendInteger(Int64(p.anchors))
        buffer.append(UInt8(ascii: ","))
        buffer.append(contentsOf: p.motion.rawValue.utf8)
        buffer.append(UInt8(ascii: "\n"))
    }

    /// One tag's track as a GeoJSON `Feature`: a `LineString` of [x, y, z] (site frame, metres), or a
    /// `Point` when there is one position, with properties `site`, `tag`, `from` and `to` (Unix ns of
    /// the first and last position), `count`, and `t_ns` (the time of each vertex). No trailing newline.
    /// - Parameter positions: one tag's positions in time order; not empty.
    public static func geoJSONFeature(_ positions: [PositionEstimate]) -> String {
        guard let first = positions.first, let last = positions.last else { return "" }
        let vertices = positions.map { "[\(number($0.position.x)), \(number($0.position.y)), \(number($0.position.z))]" }
        let geometry = positions.count == 1
            ? "{\"type\": \"Point\", \"coordinates\": \(vertices[0])}"
            : "{\"type\": \"LineString\", \"coordinates\": [\(vertices.joined(separator: ", "))]}"
        return "{\"type\": \"Feature\", \"geometry\": \(geometry), \"properties\": {\"site\": \(JSONText.quoted(first.site)), "
            + "\"tag\": \(JSONText.quoted(first.tag)), \"from\": \(first.time), \"to\": \(last.time), "
            + "\"count\": \(positions.count), \"t_ns\": [\(positions.map { String($0.time) }.joined(separator: ", "))]}}"
    }

    /// A GeoJSON `FeatureCollection` text around features made by `geoJSONFeature`, with its `\n`.
    /// - Parameter features: the features' texts.
    public static func geoJSONCollection(_ features: [String]) -> String {
        "{\"type\": \"FeatureCollection\", \"features\": [\n" + features.map { "  " + $0 }.joined(separator: ",\n") + "\n]}\n"
    }

    private static func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        var bytes: [UInt8] = []
        FixedDecimal.append(v, decimals: OutputEncoder.metreDecimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A text cell of CSV (RFC 4180), quoted when it holds `,`, `"`, CR or LF. A cell that a
    /// spreadsheet would take for a formula (starting with `=`, `+`, `-`, `@`, tab or CR: the OWASP
    /// rule against CSV injection) gets a leading `'` and is quoted, so it reads as text.
    public static func csvField(_ s: String) -> String {
        var bytes: [UInt8] = []
        appendCSVField(s, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendCSVField(_ s: String, to buffer: inout [UInt8]) {
        let formula = s.utf8.first.map { [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 9, 13].contains($0) } ?? false
        guard formula || s.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }) else {
            buffer.append(contentsOf: s.utf8)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        if formula { buffer.append(UInt8(ascii: "'")) }
        for byte in s.utf8 {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private static func metres(_ v: Double, _ buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: ","))
        if v.isFinite { FixedDecimal.append(v, decimals: OutputEncoder.metreDecimals, to: &buffer) }
    }

    private static func significant(_ v: Double, _ buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: ","))
        if v.isFinite { FixedDecimal.append(v, significantDigits: OutputEncoder.covarianceDigits, to: &buffer) }
    }
}
