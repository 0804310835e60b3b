import Positioning
import Testing

/// One malformed site file and what its refusal must name.
struct RefusalCase: Sendable, CustomTestStringConvertible {
    var name: String
    var json: String
    var item: SiteError.Item?
    var field: String?
    /// A fragment the message must contain (the reason in words).
    var says: String
    var testDescription: String { name }

    static let anchor = #"{"id": "A1", "position": [1, 1, 3], "technologies": ["uwb"]}"#
    static let zone = #"{"id": "z", "polygon": [[0, 0], [1, 0], [0, 1]]}"#

    /// A valid site file with pieces replaced.
    static func siteJSON(top: String = #""id": "t", "dimensions": 2, "tagHeight": 1.2"#,
                         bounds: String? = #"{"min": [0, 0, 0], "max": [10, 10, 4]}"#,
                         anchors: [String]? = [anchor], zones: [String] = []) -> String {
        var parts = [top]
        if let bounds { parts.append("\"bounds\": \(bounds)") }
        if let anchors { parts.append("\"anchors\": [\(anchors.joined(separator: ", "))]") }
        parts.append("\"zones\": [\(zones.joined(separator: ", "))]")
        return "{" + parts.joined(separator: ", ") + "}"
    }

    /// A site whose only anchor is `anchor` with `fields` appended.
    static func withAnchor(_ fields: String) -> String {
        siteJSON(anchors: [#"{"id": "A1", "technologies": ["uwb"], "#
                           + (fields.contains("\"position\"") ? "" : #""position": [1, 1, 3], "#) + fields + "}"])
    }

    static let all: [RefusalCase] = [
        RefusalCase(name: "invalid JSON", json: #"{"id": "t", "anchors": [1, }"#, field: nil, says: "is not valid JSON: "),
        RefusalCase(name: "NaN literal", json: withAnchor(#""rangeBias": NaN"#), field: nil, says: "is not valid JSON"),
        RefusalCase(name: "top level not an object", json: "[1, 2]", field: nil, says: "must be an object, found an array"),
        RefusalCase(name: "missing id", json: siteJSON(top: #""dimensions": 2, "tagHeight": 1"#), field: "id", says: "is missing"),
        RefusalCase(name: "empty id", json: siteJSON(top: #""id": "", "dimensions": 2, "tagHeight": 1"#), field: "id", says: "must not be empty"),
        RefusalCase(name: "dimensions 4", json: siteJSON(top: #""id": "t", "dimensions": 4"#), field: "dimensions", says: "must be 2 or 3, found 4"),
        RefusalCase(name: "dimensions missing", json: siteJSON(top: #""id": "t""#), field: "dimensions", says: "is missing"),
        RefusalCase(name: "2-D without tagHeight", json: siteJSON(top: #""id": "t", "dimensions": 2"#), field: "tagHeight", says: "is required when dimensions is 2"),
        RefusalCase(name: "tagHeight a boolean", json: siteJSON(top: #""id": "t", "dimensions": 2, "tagHeight": true"#), field: "tagHeight", says: "must be a number, found true"),
        RefusalCase(name: "bounds missing", json: siteJSON(bounds: nil), field: "bounds", says: "is missing"),
        RefusalCase(name: "bounds min > max", json: siteJSON(bounds: #"{"min": [0, 5, 0], "max": [10, 3, 4]}"#), field: "bounds.min[1]", says: "is 5, greater than 'bounds.max[1]' (3)"),
        RefusalCase(name: "bounds max 2 numbers", json: siteJSON(bounds: #"{"min": [0, 0, 0], "max": [10, 3]}"#), field: "bounds.max", says: "must have 3 numbers, found 2"),
        RefusalCase(name: "anchors missing", json: siteJSON(anchors: nil), field: "anchors", says: "is missing"),
        RefusalCase(name: "no anchors", json: siteJSON(anchors: []), field: "anchors", says: "must not be empty"),
        RefusalCase(name: "anchor without id", json: siteJSON(anchors: [anchor, #"{"position": [1, 1, 3], "technologies": ["uwb"]}"#]), field: "anchors[1].id", says: "is missing"),
        RefusalCase(name: "anchor not an object", json: siteJSON(anchors: [anchor, "7"]), field: "anchors[1]", says: "must be an object, found the number 7"),
        RefusalCase(name: "duplicate anchor id", json: siteJSON(anchors: [anchor, #"{"id": "B", "position": [1, 1, 3], "technologies": ["uwb"]}"#, anchor]), item: .anchor("A1"), field: "id", says: "duplicates the id of anchors[0]"),
        RefusalCase(name: "position missing", json: siteJSON(anchors: [#"{"id": "A1", "technologies": ["uwb"]}"#]), item: .anchor("A1"), field: "position", says: "is missing"),
        RefusalCase(name: "position 2 numbers", json: withAnchor(#""position": [1, 2]"#), item: .anchor("A1"), field: "position", says: "must have 3 numbers, found 2"),
        RefusalCase(name: "position 4 numbers", json: withAnchor(#""position": [1, 2, 3, 4]"#), item: .anchor("A1"), field: "position", says: "must have 3 numbers, found 4"),
        RefusalCase(name: "position a string", json: withAnchor(#""position": "1,2,3""#), item: .anchor("A1"), field: "position", says: "must be an array of 3 numbers, found a string"),
        RefusalCase(name: "position non-number", json: withAnchor(#""position": [1, "2", 3]"#), item: .anchor("A1"), field: "position[1]", says: #"must be a number, found a string ("2")"#),
        RefusalCase(name: "position NaN string", json: withAnchor(#""position": [1, "NaN", 3]"#), item: .anchor("A1"), field: "position[1]", says: "must be a number"),
        RefusalCase(name: "technologies missing", json: siteJSON(anchors: [#"{"id": "A1", "position": [1, 1, 3]}"#]), item: .anchor("A1"), field: "technologies", says: "is missing"),
        RefusalCase(name: "empty technologies", json: siteJSON(anchors: [#"{"id": "A1", "position": [1, 1, 3], "technologies": []}"#]), item: .anchor("A1"), field: "technologies", says: "must not be empty"),
        RefusalCase(name: "unknown technology", json: siteJSON(anchors: [#"{"id": "A1", "position": [1, 1, 3], "technologies": ["uwb", "wifi"]}"#]), item: .anchor("A1"), field: "technologies", says: "unknown technology 'wifi' (known: uwb, cs, aoa)"),
        RefusalCase(name: "technology repeated", json: siteJSON(anchors: [#"{"id": "A1", "position": [1, 1, 3], "technologies": ["cs", "cs"]}"#]), item: .anchor("A1"), field: "technologies", says: "lists 'cs' more than once"),
        RefusalCase(name: "orientation without pitch", json: withAnchor(#""orientation": {"yaw": 10, "roll": 0}"#), item: .anchor("A1"), field: "orientation.pitch", says: "is missing"),
        RefusalCase(name: "orientation without yaw", json: withAnchor(#""orientation": {"pitch": 10, "roll": 0}"#), item: .anchor("A1"), field: "orientation.yaw", says: "is missing"),
        RefusalCase(name: "orientation without roll", json: withAnchor(#""orientation": {"yaw": 10, "pitch": 0}"#), item: .anchor("A1"), field: "orientation.roll", says: "is missing"),
        RefusalCase(name: "yaw beyond a turn (fuzzing: 1e308 degrees overflowed to infinite radians)", json: withAnchor(#""orientation": {"yaw": 1e308, "pitch": 0, "roll": 0}"#), item: .anchor("A1"), field: "orientation.yaw", says: "is 1e+308, must be in [-360, 360] degrees"),
        RefusalCase(name: "pitch beyond a turn", json: withAnchor(#""orientation": {"yaw": 0, "pitch": -360.5, "roll": 0}"#), item: .anchor("A1"), field: "orientation.pitch", says: "must be in [-360, 360] degrees"),
        RefusalCase(name: "orientation not an object", json: withAnchor(#""orientation": [10, 20, 0]"#), item: .anchor("A1"), field: "orientation", says: "must be an object, found an array"),
        RefusalCase(name: "fieldOfView 0", json: withAnchor(#""fieldOfView": 0"#), item: .anchor("A1"), field: "fieldOfView", says: "is 0, must be in (0, 360]"),
        RefusalCase(name: "fieldOfView negative", json: withAnchor(#""fieldOfView": -10"#), item: .anchor("A1"), field: "fieldOfView", says: "is -10, must be in (0, 360]"),
        RefusalCase(name: "fieldOfView 360.5", json: withAnchor(#""fieldOfView": 360.5"#), item: .anchor("A1"), field: "fieldOfView", says: "is 360.5, must be in (0, 360]"),
        RefusalCase(name: "rangeStd 0", json: withAnchor(#""rangeStd": 0"#), item: .anchor("A1"), field: "rangeStd", says: "is 0, must be between 0.0001 and 1000 metres"),
        RefusalCase(name: "rangeStd negative", json: withAnchor(#""rangeStd": -0.1"#), item: .anchor("A1"), field: "rangeStd", says: "is -0.1, must be between 0.0001 and 1000 metres"),
        RefusalCase(name: "rangeStd 1e-300", json: withAnchor(#""rangeStd": 1e-300"#), item: .anchor("A1"), field: "rangeStd", says: "must be between 0.0001 and 1000 metres"),
        RefusalCase(name: "rangeStd 1e308", json: withAnchor(#""rangeStd": 1e308"#), item: .anchor("A1"), field: "rangeStd", says: "must be between 0.0001 and 1000 metres"),
        RefusalCase(name: "rangeBias 1e6", json: withAnchor(#""rangeBias": 1e6"#), item: .anchor("A1"), field: "rangeBias", says: "is 1000000, must be within ±1000 metres"),
        RefusalCase(name: "bounds up to 1e308", json: siteJSON(bounds: #"{"min": [0, 0, 0], "max": [1e308, 1e308, 4]}"#), field: "bounds.max[0]", says: "must be within ±1000000 metres"),
        RefusalCase(name: "bounds down to -2e6", json: siteJSON(bounds: #"{"min": [0, -2e6, 0], "max": [10, 10, 4]}"#), field: "bounds.min[1]", says: "is -2000000, must be within ±1000000 metres"),
        RefusalCase(name: "anchor far away", json: withAnchor(#""position": [1e7, 1, 3]"#), item: .anchor("A1"), field: "position[0]", says: "must be within ±1000000 metres"),
        RefusalCase(name: "zone point far away", json: siteJSON(zones: [#"{"id": "z", "polygon": [[0, 0], [1e300, 0], [0, 1]]}"#]), item: .zone("z"), field: "polygon[1][0]", says: "must be within ±1000000 metres"),
        RefusalCase(name: "zone maxZ far away", json: siteJSON(zones: [#"{"id": "z", "polygon": [[0, 0], [1, 0], [0, 1]], "maxZ": 1e9}"#]), item: .zone("z"), field: "maxZ", says: "must be within ±1000000 metres"),
        RefusalCase(name: "tagHeight far away", json: siteJSON(top: #""id": "t", "dimensions": 2, "tagHeight": -1e12"#), field: "tagHeight", says: "must be within ±1000000 metres"),
        RefusalCase(name: "site id with NUL", json: siteJSON(top: #""id": "t\u0000x", "dimensions": 2, "tagHeight": 1"#), field: "id", says: "holds a control character"),
        RefusalCase(name: "site name with ESC", json: siteJSON(top: #""id": "t", "name": "a\u001b[2Jb", "dimensions": 2, "tagHeight": 1"#), field: "name", says: "holds a control character"),
        RefusalCase(name: "anchor id with CR", json: siteJSON(anchors: [#"{"id": "A\r1", "position": [1, 1, 3], "technologies": ["uwb"]}"#]), field: "anchors[0].id", says: "holds a control character"),
        RefusalCase(name: "zone id with LF", json: siteJSON(zones: [#"{"id": "z\n", "polygon": [[0, 0], [1, 0], [0, 1]]}"#]), field: "zones[0].id", says: "holds a control character"),
        RefusalCase(name: "zone name with a C1 control", json: siteJSON(zones: [#"{"id": "z", "name": "a\u009bb", "polygon": [[0, 0], [1, 0], [0, 1]]}"#]), item: .zone("z"), field: "name", says: "holds a control character"),
        RefusalCase(name: "rangeBias a string", json: withAnchor(#""rangeBias": "0.1""#), item: .anchor("A1"), field: "rangeBias", says: "must be a number"),
        RefusalCase(name: "zone without id", json: siteJSON(zones: [#"{"polygon": [[0, 0], [1, 0], [0, 1]]}"#]), field: "zones[0].id", says: "is missing"),
        RefusalCase(name: "zone polygon 2 points", json: siteJSON(zones: [#"{"id": "z", "polygon": [[0, 0], [1, 0]]}"#]), item: .zone("z"), field: "polygon", says: "must have at least 3 points, found 2"),
        RefusalCase(name: "zone polygon missing", json: siteJSON(zones: [#"{"id": "z"}"#]), item: .zone("z"), field: "polygon", says: "is missing"),
        RefusalCase(name: "zone point 3 numbers", json: siteJSON(zones: [#"{"id": "z", "polygon": [[0, 0], [1, 0, 2], [0, 1]]}"#]), item: .zone("z"), field: "polygon[1]", says: "must have 2 numbers, found 3"),
        RefusalCase(name: "zone point non-number", json: siteJSON(zones: [#"{"id": "z", "polygon": [[0, 0], [1, null], [0, 1]]}"#]), item: .zone("z"), field: "polygon[1][1]", says: "must be a number, found null"),
        RefusalCase(name: "duplicate zone id", json: siteJSON(zones: [zone, zone]), item: .zone("z"), field: "id", says: "duplicates the id of zones[0]"),
        RefusalCase(name: "zone minZ > maxZ", json: siteJSON(zones: [#"{"id": "z", "polygon": [[0, 0], [1, 0], [0, 1]], "minZ": 3, "maxZ": 2.5}"#]), item: .zone("z"), field: "minZ", says: "is 3, greater than 'maxZ' (2.5)"),
        RefusalCase(name: "tagHeightRange on a 2-D site", json: siteJSON(top: #""id": "t", "dimensions": 2, "tagHeight": 1, "tagHeightRange": [0, 2]"#), field: "tagHeightRange", says: "must be on a 3-D site (a 2-D site has tagHeight), found a 2-D site"),
        RefusalCase(name: "tagHeightRange reversed", json: siteJSON(top: #""id": "t", "dimensions": 3, "tagHeightRange": [3, 1]"#), field: "tagHeightRange[0]", says: "is 3, greater than 'tagHeightRange[1]' (1)"),
        RefusalCase(name: "tagHeightRange above the bounds", json: siteJSON(top: #""id": "t", "dimensions": 3, "tagHeightRange": [0, 5]"#), field: "tagHeightRange[1]", says: "is 5, must be within bounds in z (0…4)"),
        RefusalCase(name: "tagHeightRange one number", json: siteJSON(top: #""id": "t", "dimensions": 3, "tagHeightRange": [1]"#), field: "tagHeightRange", says: "must have 2 numbers, found 1"),
    ]
}
