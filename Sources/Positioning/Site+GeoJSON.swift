extension Site {
    /// The site map as a plain GeoJSON `FeatureCollection` (RFC 7946, no `crs`), for mapping tools.
    ///
    /// Coordinates are the site frame's x and y in metres, not longitude and latitude: a tool that
    /// draws them as planar coordinates shows the map as is. Each anchor is a `Point` feature with
    /// properties `kind: "anchor"`, `id`, `technologies` and `z` (metres); each zone is a `Polygon`
    /// (one closed ring, counter-clockwise) with properties `kind: "zone"`, `id`, `name`, and `minZ` /
    /// `maxZ` when set. The collection's foreign members `site` and `name` hold the site's id and name.
    public func geoJSONBytes() -> [UInt8] {
        var features: [String] = []
        for a in anchors {
            let technologies = a.technologies.map { JSONText.quoted($0.rawValue) }.joined(separator: ", ")
            features.append("""
                {"type": "Feature", "geometry": {"type": "Point", "coordinates": [\(n(a.position.x)), \(n(a.position.y))]}, \
                "properties": {"kind": "anchor", "id": \(JSONText.quoted(a.id)), "technologies": [\(technologies)], \
                "z": \(n(a.position.z))}}
                """)
        }
        for z in zones {
            var ring = z.polygon
            if Self.signedArea(ring) < 0 { ring.reverse() }
            if let first = ring.first { ring.append(first) }
            let coordinates = ring.map { "[\(n($0.0)), \(n($0.1))]" }.joined(separator: ", ")
            var properties = "\"kind\": \"zone\", \"id\": \(JSONText.quoted(z.id)), \"name\": \(JSONText.quoted(z.name))"
            if let minZ = z.minZ { properties += ", \"minZ\": \(n(minZ))" }
            if let maxZ = z.maxZ { properties += ", \"maxZ\": \(n(maxZ))" }
            features.append("""
                {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[\(coordinates)]]}, \
                "properties": {\(properties)}}
                """)
        }
        let text = """
            {"type": "FeatureCollection", "site": \(JSONText.quoted(id)), "name": \(JSONText.quoted(name)), "features": [
            \(features.map { "  " + $0 }.joined(separator: ",\n"))
            ]}

            """
        return Array(text.utf8)
    }

    private func n(_ v: Double) -> String { v.isFinite ? SiteJSONNumber.format(v) : "null" }

    /// Twice the signed area of a polygon (positive when counter-clockwise), square metres.
    static func signedArea(_ ring: [(Double, Double)]) -> Double {
        var sum = 0.0
        for i in ring.indices {
            let (x0, y0) = ring[i], (x1, y1) = ring[(i + 1) % ring.count]
            sum += x0 * y1 - x1 * y0
        }
        return sum
    }
}
