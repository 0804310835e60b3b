internal import Positioning
internal import Numerics
internal import CScan

extension IngestDecoder {
    /// Validates and builds a `Ranging` (time left at 0 for the caller to set).
    ///
    /// Order of checks: tags, then field types and finiteness, then distance (negative, absurd), `std`,
    /// angles, the direction vector, and finally that a distance or a direction is present. When both
    /// angles and a vector are given, the vector is used (the angles are still validated).
    /// `f` is `inout` only so that it is not copied (321 bytes) into the call; it is not changed.
    @inline(__always)
    func decodeRanging<Ids: IdStrings>(_ f: inout IngestFields, _ ids: inout Ids) throws(RejectReason) -> Ranging {
        let site = try f.requiredTag(f.site, "site", &ids)
        let anchor = try f.requiredTag(f.anchor, "anchor", &ids)
        let tag = try f.requiredTag(f.tag, "tag", &ids)
        let technology = try Self.technology(f.tech, in: f.bytes)
        let distance = try f.number(f.distance, "distance")
        let std = try f.number(f.std, "std")
        let azimuth = try f.number(f.azimuth, "azimuth")
        let elevation = try f.number(f.elevation, "elevation")
        let dx = try f.number(f.dirX, "dir_x"), dy = try f.number(f.dirY, "dir_y"), dz = try f.number(f.dirZ, "dir_z")

        try checkRange(distance, std: std)
        try checkAngles(azimuth, elevation)

        var direction: Direction?
        switch (dx, dy, dz) {
        case (nil, nil, nil):
            if azimuth != nil || elevation != nil { direction = .angles(azimuth: azimuth, elevation: elevation) }
        case (let x?, let y?, let z?):
            direction = .vector(try unitVector(Vec3(x, y, z)))
        default:
            throw .missingField(dx == nil ? "dir_x" : (dy == nil ? "dir_y" : "dir_z"))
        }
        if distance == nil && direction == nil { throw .noMeasurement }
        return Ranging(site: site, anchor: anchor, tag: tag, technology: technology, distance: distance,
                       std: std, direction: direction, time: 0)
    }

    /// The `Ranging` of a line that `sextant_scan_ranging` read, checked as `decodeRanging` checks it
    /// (the technology, then the distance, then `std`, then the angles; the numbers are plain
    /// decimals, always finite).
    @inline(__always)
    func decodeUsualRanging<Ids: IdStrings>(_ r: sextant_ranging_line, _ b: UnsafeRawBufferPointer,
                                            _ ids: inout Ids) throws(RejectReason) -> Ranging {
        @inline(__always) func span(_ start: Int32, _ end: Int32) -> ByteSpan {
            ByteSpan(start: Int(start), end: Int(end), escape: .none)
        }
        let site = try IngestFields.id(span(r.site_start, r.site_end), "site", b, &ids)
        let anchor = try IngestFields.id(span(r.anchor_start, r.anchor_end), "anchor", b, &ids)
        let tag = try IngestFields.id(span(r.tag_start, r.tag_end), "tag", b, &ids)
        let technology = try Self.technology(r.tech_end == 0 ? nil : span(r.tech_start, r.tech_end), in: b)
        let std: Double? = r.has_std != 0 ? r.std : nil
        try checkRange(r.distance, std: std)
        var direction: Direction?
        if r.has_azimuth != 0 || r.has_elevation != 0 {
            let azimuth: Double? = r.has_azimuth != 0 ? r.azimuth : nil
            let elevation: Double? = r.has_elevation != 0 ? r.elevation : nil
            try checkAngles(azimuth, elevation)
            direction = .angles(azimuth: azimuth, elevation: elevation)
        }
        return Ranging(site: site, anchor: anchor, tag: tag, technology: technology, distance: r.distance,
                       std: std, direction: direction, time: try precision.nanoseconds(r.time))
    }

    /// Refuses a negative or absurd distance (m), then a `std` outside `Anchor.rangeStdLimits`.
    @inline(__always)
    private func checkRange(_ distance: Double?, std: Double?) throws(RejectReason) {
        if let d = distance {
            if d < 0 { throw .negativeDistance(d) }
            if d > maxDistance { throw .absurdDistance(d, limit: maxDistance) }
        }
        if let s = std, !Anchor.rangeStdLimits.contains(s) { throw .badStd(s) }
    }

    /// Refuses an azimuth outside [−π, π], then an elevation outside [−π/2, π/2] (radians).
    @inline(__always)
    private func checkAngles(_ azimuth: Double?, _ elevation: Double?) throws(RejectReason) {
        if let a = azimuth, !(-Double.pi...Double.pi).contains(a) { throw .badAngle(field: "azimuth", value: a) }
        if let e = elevation, !(-Double.pi / 2...Double.pi / 2).contains(e) {
            throw .badAngle(field: "elevation", value: e)
        }
    }

    /// The technology named by a `tech` tag's value (nil without the tag).
    @inline(__always)
    static func technology(_ tech: ByteSpan?, in b: UnsafeRawBufferPointer) throws(RejectReason) -> Technology? {
        guard let tech else { return nil }
        // Each technology matched on the bytes, without a String (a String and `init(rawValue:)` cost
        // about 375 instructions a line); only an unknown value is made into one, for its message.
        if b.matches(tech, "uwb") { return .uwb }
        if b.matches(tech, "cs") { return .cs }
        if b.matches(tech, "aoa") { return .aoa }
        let text = b.string(tech)
        guard let t = Technology(rawValue: text) else {
            throw .badValue(name: "tech", value: text,
                            expected: Technology.allCases.map(\.rawValue).joined(separator: " or "))
        }
        return t
    }

    /// Checks the norm is within 1 ± `unitTolerance` and normalises. A vector already unit to within
    /// rounding (|norm − 1| < 1e-12) is kept bit for bit, so encoded vectors decode to the same value.
    private func unitVector(_ v: Vec3) throws(RejectReason) -> Vec3 {
        let n = v.norm
        guard abs(n - 1) <= unitTolerance else { throw .directionNotUnit(norm: n) }
        return abs(n - 1) < 1e-12 ? v : (1 / n) * v
    }
}
