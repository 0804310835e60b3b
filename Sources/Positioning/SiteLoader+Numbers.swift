internal import Foundation

/// A JSON document read with `JSONDecoder`, for its numbers.
///
/// `JSONSerialization` in swift-corelibs-foundation (Linux) does not round numbers correctly: about one
/// 17-digit number in five is read one ulp off (`6.0021111793912505` as `6.00211117939125`), so a site
/// written by `jsonBytes()` did not always read back equal (found by fuzzing the loader). `JSONDecoder`
/// reads them exactly. The loader still parses with `JSONSerialization` first, for its error messages
/// with a character offset, then takes the values from here. Two differences: a key repeated in an
/// object keeps its first value here (its last with `JSONSerialization`), and a number that underflows
/// (`1e-400`) makes `JSONDecoder` refuse the document, which is then read as `JSONSerialization` read it.
enum SiteJSONValue: Decodable {
    case object([String: SiteJSONValue])
    case array([SiteJSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            var members: [String: SiteJSONValue] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(SiteJSONValue.self, forKey: key) }
            self = .object(members)
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [SiteJSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(SiteJSONValue.self)) }
            self = .array(elements)
        } else {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() { self = .null }
            else if let b = try? value.decode(Bool.self) { self = .bool(b) }
            else if let d = try? value.decode(Double.self) { self = .number(d) }
            else { self = .string(try value.decode(String.self)) }
        }
    }

    /// The value as the objects `JSONSerialization` makes (`[String: Any]`, `[Any]`, `String`, `NSNumber`,
    /// `NSNull`), which `SiteReader` reads.
    var foundationObject: Any {
        switch self {
        case .object(let members): members.mapValues(\.foundationObject)
        case .array(let elements): elements.map(\.foundationObject)
        case .string(let s): s
        case .number(let d): NSNumber(value: d)
        case .bool(let b): NSNumber(value: b)
        case .null: NSNull()
        }
    }

    /// The document in `json` with its numbers read exactly, or nil when `JSONDecoder` refuses it (a number
    /// beyond the range of Double; the caller then keeps `JSONSerialization`'s reading).
    static func exactObject(_ json: Data) -> Any? {
        (try? JSONDecoder().decode(SiteJSONValue.self, from: json))?.foundationObject
    }
}
