internal import Foundation
import Numerics

extension Site {
    /// Reads a site map from JSON bytes (the format in `Sites/README.md`); pure, never touches files.
    ///
    /// Angles in the file are degrees and become radians; positions are metres in the site frame.
    /// Unknown keys are ignored; `null` counts as absent. Missing or contradictory values are refused.
    /// - Parameters:
    ///   - json: the UTF-8 bytes of the file.
    ///   - source: a name for the bytes (usually the file path), used in error messages.
    /// - Throws: `SiteError` naming the source, the anchor or zone, the field and the reason.
    public init(json: [UInt8], source: String) throws(SiteError) {
        let parsed: Any
        do {
            let data = Data(json)
            let syntax = try JSONSerialization.jsonObject(with: data)
            parsed = SiteJSONValue.exactObject(data) ?? syntax
        } catch {
            let message = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw SiteError(source: source, reason: .invalidJSON(Self.withLine(message, in: json)))
        }
        guard let root = parsed as? [String: Any] else {
            throw SiteError(source: source, reason: .wrongType(expected: "an object",
                                                               found: SiteJSONNumber.describe(parsed)))
        }
        let r = SiteReader(object: root, source: source, item: nil, prefix: "")

        let id = try r.requiredID("id")
        let name = try r.text("name") ?? id
        let dimensions = try r.requiredNumber("dimensions")
        guard dimensions == 2 || dimensions == 3 else {
            throw r.error("dimensions", .notAllowed(found: SiteJSONNumber.format(dimensions), allowed: "2 or 3"))
        }
        let tagHeight = try r.coordinate("tagHeight")
        if dimensions == 2, tagHeight == nil { throw r.error("tagHeight", .requiredWhen2D) }
        let bounds = try Self.readBounds(r)
        let tagHeightRange = try Self.readTagHeightRange(r, dimensions: Int(dimensions), bounds: bounds)

        guard let anchorValues = try r.array("anchors") else { throw r.error("anchors", .missing) }
        guard !anchorValues.isEmpty else { throw r.error("anchors", .empty) }
        var anchors: [Anchor] = []
        var anchorPaths: [String: String] = [:]
        for (i, value) in anchorValues.enumerated() {
            let anchor = try Self.readAnchor(r.nested(value, at: "anchors[\(i)]"))
            if let first = anchorPaths[anchor.id] {
                throw SiteError(source: source, item: .anchor(anchor.id), field: "id", reason: .duplicateID(of: first))
            }
            anchorPaths[anchor.id] = "anchors[\(i)]"
            anchors.append(anchor)
        }

        var zones: [Zone] = []
        var zonePaths: [String: String] = [:]
        for (i, value) in try (r.array("zones") ?? []).enumerated() {
            let zone = try Self.readZone(r.nested(value, at: "zones[\(i)]"))
            if let first = zonePaths[zone.id] {
                throw SiteError(source: source, item: .zone(zone.id), field: "id", reason: .duplicateID(of: first))
            }
            zonePaths[zone.id] = "zones[\(i)]"
            zones.append(zone)
        }

        self.init(id: id, name: name, dimensions: Int(dimensions), tagHeight: tagHeight, bounds: bounds,
                  anchors: anchors, zones: zones, tagHeightRange: tagHeightRange)
    }

    /// Adds "(line L, column C)" to a parser message that gives a byte offset ("around character N").
    private static func withLine(_ message: String, in json: [UInt8]) -> String {
        guard let range = message.range(of: "character "),
              let offset = Int(message[range.upperBound...].prefix(while: \.isNumber)), offset <= json.count
        else { return message }
        let before = json[..<offset]
        let line = before.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return "\(message) (line \(line), column \(column))"
    }

    private static func readBounds(_ r: SiteReader) throws(SiteError) -> Bounds {
        guard let b = try r.object("bounds") else { throw r.error("bounds", .missing) }
        let min = try b.requiredVector3("min"), max = try b.requiredVector3("max")
        for axis in 0..<3 where min[axis] > max[axis] {
            throw b.error("min[\(axis)]", .greaterThan(value: min[axis], other: "bounds.max[\(axis)]",
                                                       otherValue: max[axis]))
        }
        return Bounds(min: min, max: max)
    }

    /// Reads `tagHeightRange`, `[low, high]` in metres: 3-D sites only, low ≤ high, within the bounds.
    private static func readTagHeightRange(_ r: SiteReader, dimensions: Int,
                                           bounds: Bounds) throws(SiteError) -> ClosedRange<Double>? {
        guard let value = r.value("tagHeightRange") else { return nil }
        guard dimensions == 3 else {
            throw r.error("tagHeightRange", .notAllowed(found: "a 2-D site", allowed: "on a 3-D site (a 2-D site has tagHeight)"))
        }
        let n = try r.numbers(value, at: "tagHeightRange", count: 2)
        guard n[0] <= n[1] else {
            throw r.error("tagHeightRange[0]", .greaterThan(value: n[0], other: "tagHeightRange[1]", otherValue: n[1]))
        }
        let z = "within bounds in z (\(SiteJSONNumber.format(bounds.min.z))…\(SiteJSONNumber.format(bounds.max.z)))"
        for (i, v) in n.enumerated() where v < bounds.min.z || v > bounds.max.z {
            throw r.error("tagHeightRange[\(i)]", .outOfRange(value: v, range: z))
        }
        return n[0]...n[1]
    }

    /// Reads one anchor; `element` reports under `anchors[i].` until the id is known.
    private static func readAnchor(_ element: SiteReader) throws(SiteError) -> Anchor {
        let id = try element.requiredID("id")
        let r = element.within(.anchor(id))
        let position = try r.requiredVector3("position")

        guard let techValues = try r.array("technologies") else { throw r.error("technologies", .missing) }
        guard !techValues.isEmpty else { throw r.error("technologies", .empty) }
        var technologies: [Technology] = []
        for (i, value) in techValues.enumerated() {
            guard let name = value as? String else {
                throw r.error("technologies[\(i)]", .wrongType(expected: "a string", found: SiteJSONNumber.describe(value)))
            }
            guard let tech = Technology(rawValue: name) else { throw r.error("technologies", .unknownTechnology(name)) }
            guard !technologies.contains(tech) else { throw r.error("technologies", .repeated(name)) }
            technologies.append(tech)
        }

        var orientation: Orientation?
        if let o = try r.object("orientation") {
            // Within one turn either way: beyond that an angle means nothing more, and near 1e308 degrees
            // its radians overflow to infinity, which the writer cannot write (found by fuzzing the loader).
            func angle(_ key: String) throws(SiteError) -> Double {
                let degrees = try o.requiredNumber(key)
                guard abs(degrees) <= 360 else {
                    throw o.error(key, .outOfRange(value: degrees, range: "in [-360, 360] degrees"))
                }
                return SiteFileAngle.radians(fromDegrees: degrees)
            }
            orientation = Orientation(yaw: try angle("yaw"), pitch: try angle("pitch"), roll: try angle("roll"))
        }
        // An `aoa` locator reports bearings in its own frame: without the frame they cannot be used.
        if orientation == nil, technologies.contains(.aoa) { throw r.error("orientation", .missing) }
        var fieldOfView: Double?
        if let fov = try r.number("fieldOfView") {
            guard fov > 0, fov <= 360 else { throw r.error("fieldOfView", .outOfRange(value: fov, range: "in (0, 360] degrees")) }
            fieldOfView = SiteFileAngle.radians(fromDegrees: fov)
        }
        let rangeBias = try r.number("rangeBias") ?? 0
        guard abs(rangeBias) <= SiteLimits.maxRangeBias else {
            throw r.error("rangeBias", .outOfRange(value: rangeBias,
                                                   range: "within ±\(SiteJSONNumber.format(SiteLimits.maxRangeBias)) metres"))
        }
        let rangeStd = try r.number("rangeStd")
        if let std = rangeStd, !Anchor.rangeStdLimits.contains(std) {
            throw r.error("rangeStd", .outOfRange(value: std, range: "between 0.0001 and 1000 metres"))
        }

        return Anchor(id: id, position: position, technologies: technologies, orientation: orientation,
                      fieldOfView: fieldOfView, rangeBias: rangeBias, rangeStd: rangeStd)
    }

    /// Reads one zone; `element` reports under `zones[i].` until the id is known.
    private static func readZone(_ element: SiteReader) throws(SiteError) -> Zone {
        let id = try element.requiredID("id")
        let r = element.within(.zone(id))
        let name = try r.text("name") ?? id
        guard let points = try r.array("polygon") else { throw r.error("polygon", .missing) }
        guard points.count >= 3 else { throw r.error("polygon", .tooFewPoints(found: points.count)) }
        var polygon: [(Double, Double)] = []
        for (i, point) in points.enumerated() {
            let xy = try r.numbers(point, at: "polygon[\(i)]", count: 2)
            polygon.append((xy[0], xy[1]))
        }
        let minZ = try r.coordinate("minZ"), maxZ = try r.coordinate("maxZ")
        if let lo = minZ, let hi = maxZ, lo > hi {
            throw r.error("minZ", .greaterThan(value: lo, other: "maxZ", otherValue: hi))
        }
        return Zone(id: id, name: name, polygon: polygon, minZ: minZ, maxZ: maxZ)
    }
}
