internal import Foundation
import Numerics

/// Number handling shared by the site reader and writer.
enum SiteJSONNumber {
    /// The number in a JSONSerialization value, or nil for anything else (booleans included).
    static func value(_ any: Any) -> Double? {
        guard let n = any as? NSNumber, !isBoolean(n) else { return nil }
        return n.doubleValue
    }

    private static func isBoolean(_ n: NSNumber) -> Bool {
        #if canImport(Darwin)
        return CFGetTypeID(n) == CFBooleanGetTypeID()
        #else
        return String(cString: n.objCType) == "c"   // JSONSerialization makes booleans only with "c"
        #endif
    }

    /// The shortest text that reads back to exactly `v`; whole numbers without a fraction ("4", not "4.0").
    static func format(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return v.description
    }

    /// A short description of a JSON value's type for error messages: `a string ("4")`, `an array`.
    static func describe(_ any: Any?) -> String {
        switch any {
        case nil, is NSNull: return "null"
        case let s as String: return "a string (\"\(s.prefix(40))\")"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        case let n as NSNumber: return value(n).map { "the number \(format($0))" } ?? (n.boolValue ? "true" : "false")
        default: return "\(type(of: any!))"
        }
    }
}

/// One JSON object of a site file being read, with the context its errors need.
///
/// Absent keys and `null` both read as nil; required readers turn nil into `.missing`.
struct SiteReader {
    let object: [String: Any]
    let source: String
    let item: SiteError.Item?
    /// Prefix of every field path, "" or e.g. "anchors[3]." / "orientation.".
    let prefix: String

    func error(_ key: String, _ reason: SiteError.Reason) -> SiteError {
        SiteError(source: source, item: item, field: prefix + key, reason: reason)
    }

    func value(_ key: String) -> Any? {
        let v = object[key]
        return v is NSNull ? nil : v
    }

    /// A finite number; the key may also be an element path such as `position[1]`.
    func number(_ any: Any, at key: String) throws(SiteError) -> Double {
        guard let v = SiteJSONNumber.value(any) else {
            throw error(key, .wrongType(expected: "a number", found: SiteJSONNumber.describe(any)))
        }
        guard v.isFinite else { throw error(key, .notFinite) }
        return v
    }

    func number(_ key: String) throws(SiteError) -> Double? {
        guard let v = value(key) else { return nil }
        return try number(v, at: key)
    }

    func requiredNumber(_ key: String) throws(SiteError) -> Double {
        guard let v = try number(key) else { throw error(key, .missing) }
        return v
    }

    func string(_ key: String) throws(SiteError) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v as? String else {
            throw error(key, .wrongType(expected: "a string", found: SiteJSONNumber.describe(v)))
        }
        return s
    }

    /// A required, non-empty string.
    func requiredString(_ key: String) throws(SiteError) -> String {
        guard let s = try string(key) else { throw error(key, .missing) }
        guard !s.isEmpty else { throw error(key, .empty) }
        return s
    }

    /// A string without control characters (an id or a name, `SiteLimits.hasControlCharacter`).
    func text(_ key: String) throws(SiteError) -> String? {
        guard let s = try string(key) else { return nil }
        guard !SiteLimits.hasControlCharacter(s) else { throw error(key, .controlCharacter) }
        return s
    }

    /// A required, non-empty id without control characters.
    func requiredID(_ key: String) throws(SiteError) -> String {
        let s = try requiredString(key)
        guard !SiteLimits.hasControlCharacter(s) else { throw error(key, .controlCharacter) }
        return s
    }

    /// A coordinate (metres): a finite number of magnitude at most `SiteLimits.maxCoordinate`.
    func coordinate(_ any: Any, at key: String) throws(SiteError) -> Double {
        let v = try number(any, at: key)
        guard abs(v) <= SiteLimits.maxCoordinate else {
            throw error(key, .outOfRange(value: v, range: "within ±\(SiteJSONNumber.format(SiteLimits.maxCoordinate)) metres"))
        }
        return v
    }

    func coordinate(_ key: String) throws(SiteError) -> Double? {
        guard let v = value(key) else { return nil }
        return try coordinate(v, at: key)
    }

    func array(_ key: String) throws(SiteError) -> [Any]? {
        guard let v = value(key) else { return nil }
        guard let a = v as? [Any] else {
            throw error(key, .wrongType(expected: "an array", found: SiteJSONNumber.describe(v)))
        }
        return a
    }

    /// A nested object, read with field paths prefixed by `key.`.
    func object(_ key: String) throws(SiteError) -> SiteReader? {
        guard let v = value(key) else { return nil }
        return try nested(v, at: key)
    }

    /// `any` as an object whose fields are reported under `path.`.
    func nested(_ any: Any, at path: String) throws(SiteError) -> SiteReader {
        guard let o = any as? [String: Any] else {
            throw error(path, .wrongType(expected: "an object", found: SiteJSONNumber.describe(any)))
        }
        return SiteReader(object: o, source: source, item: item, prefix: prefix + path + ".")
    }

    /// The same object, now known to be the anchor or zone `item`, with paths relative to it.
    func within(_ item: SiteError.Item) -> SiteReader {
        SiteReader(object: object, source: source, item: item, prefix: "")
    }

    /// An array of exactly `count` coordinates (`coordinate`), at `key` or (with `any`) at an element path.
    func numbers(_ any: Any, at key: String, count: Int) throws(SiteError) -> [Double] {
        guard let a = any as? [Any] else {
            throw error(key, .wrongType(expected: "an array of \(count) numbers", found: SiteJSONNumber.describe(any)))
        }
        guard a.count == count else { throw error(key, .wrongCount(expected: count, found: a.count, of: "numbers")) }
        var out: [Double] = []
        for (i, element) in a.enumerated() { out.append(try coordinate(element, at: "\(key)[\(i)]")) }
        return out
    }

    func vector3(_ key: String) throws(SiteError) -> Vec3? {
        guard let v = value(key) else { return nil }
        let n = try numbers(v, at: key, count: 3)
        return Vec3(n[0], n[1], n[2])
    }

    func requiredVector3(_ key: String) throws(SiteError) -> Vec3 {
        guard let v = try vector3(key) else { throw error(key, .missing) }
        return v
    }
}
