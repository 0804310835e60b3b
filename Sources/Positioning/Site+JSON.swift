import Numerics

extension Site {
    /// Writes the site map in the file format `init(json:source:)` reads: UTF-8 JSON, pretty-printed,
    /// keys in the documented order, one anchor or zone per line, angles in degrees.
    ///
    /// Reading the result back gives an equal `Site`: numbers are written in their shortest exact form
    /// and degrees are chosen so they convert back to the same radians bit for bit. Optional fields
    /// that are nil (and a zero `rangeBias`) are left out. Non-finite numbers are written as `null`,
    /// which the reader refuses.
    public func jsonBytes() -> [UInt8] {
        var lines = ["{"]
        var top = ["  \"id\": \(JSONText.quoted(id))",
                   "  \"name\": \(JSONText.quoted(name))",
                   "  \"dimensions\": \(dimensions)"]
        if let tagHeight { top.append("  \"tagHeight\": \(SiteJSONNumber.format(tagHeight))") }
        if let r = tagHeightRange {
            top.append("  \"tagHeightRange\": [\(SiteJSONNumber.format(r.lowerBound)), \(SiteJSONNumber.format(r.upperBound))]")
        }
        top.append("  \"bounds\": {\"min\": \(SiteJSONText.vector(bounds.min)), \"max\": \(SiteJSONText.vector(bounds.max))}")
        top.append("  \"anchors\": " + SiteJSONText.list(anchors.map(SiteJSONText.anchor)))
        top.append("  \"zones\": " + SiteJSONText.list(zones.map(SiteJSONText.zone)))
        lines.append(top.joined(separator: ",\n"))
        lines.append("}\n")
        return Array(lines.joined(separator: "\n").utf8)
    }
}

/// Pieces of the site file text.
enum SiteJSONText {

    static func vector(_ v: Vec3) -> String {
        "[\(SiteJSONNumber.format(v.x)), \(SiteJSONNumber.format(v.y)), \(SiteJSONNumber.format(v.z))]"
    }

    static func degrees(_ radians: Double) -> String { SiteJSONNumber.format(SiteFileAngle.degrees(fromRadians: radians)) }

    /// A JSON array with one element per line, indented under a top-level key.
    static func list(_ items: [String]) -> String {
        items.isEmpty ? "[]" : "[\n" + items.map { "    " + $0 }.joined(separator: ",\n") + "\n  ]"
    }

    static func anchor(_ a: Anchor) -> String {
        var fields = ["\"id\": \(JSONText.quoted(a.id))",
                      "\"position\": \(vector(a.position))",
                      "\"technologies\": [" + a.technologies.map { JSONText.quoted($0.rawValue) }.joined(separator: ", ") + "]"]
        if let o = a.orientation {
            fields.append("\"orientation\": {\"yaw\": \(degrees(o.yaw)), \"pitch\": \(degrees(o.pitch)), \"roll\": \(degrees(o.roll))}")
        }
        if let fov = a.fieldOfView { fields.append("\"fieldOfView\": \(degrees(fov))") }
        if a.rangeBias != 0 { fields.append("\"rangeBias\": \(SiteJSONNumber.format(a.rangeBias))") }
        if let std = a.rangeStd { fields.append("\"rangeStd\": \(SiteJSONNumber.format(std))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    static func zone(_ z: Zone) -> String {
        var fields = ["\"id\": \(JSONText.quoted(z.id))", "\"name\": \(JSONText.quoted(z.name))"]
        let points = z.polygon.map { "[\(SiteJSONNumber.format($0.0)), \(SiteJSONNumber.format($0.1))]" }
        fields.append("\"polygon\": [" + points.joined(separator: ", ") + "]")
        if let minZ = z.minZ { fields.append("\"minZ\": \(SiteJSONNumber.format(minZ))") }
        if let maxZ = z.maxZ { fields.append("\"maxZ\": \(SiteJSONNumber.format(maxZ))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}
