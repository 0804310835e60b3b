/// Why a site map was refused, and where: the source it came from, the anchor or zone, and the field.
///
/// `description` reads like `Sites/x.json: anchor 'A3': field 'orientation.pitch' is missing`.
public struct SiteError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The anchor or zone the error is in, once its id is known.
    public enum Item: Sendable, Equatable {
        /// The anchor with this id.
        case anchor(String)
        /// The zone with this id.
        case zone(String)
    }

    /// What is wrong with the field; one case per reason.
    public enum Reason: Sendable, Equatable {
        /// The bytes are not JSON; carries the parser's message.
        case invalidJSON(String)
        /// A required field is absent (or null).
        case missing
        /// The value has the wrong JSON type, e.g. a string where a number belongs.
        case wrongType(expected: String, found: String)
        /// A number that is not finite.
        case notFinite
        /// An array with the wrong number of elements.
        case wrongCount(expected: Int, found: Int, of: String)
        /// `tagHeight` is absent on a 2-D site.
        case requiredWhen2D
        /// A value outside a fixed set, e.g. `dimensions` not 2 or 3.
        case notAllowed(found: String, allowed: String)
        /// A number outside its range, e.g. `fieldOfView` outside (0, 360].
        case outOfRange(value: Double, range: String)
        /// A technology name other than `uwb` or `cs`.
        case unknownTechnology(String)
        /// An array or string that must not be empty.
        case empty
        /// A list names the same entry twice.
        case repeated(String)
        /// An id already used by an earlier entry (given as a path such as `anchors[0]`).
        case duplicateID(of: String)
        /// A polygon with fewer than three points.
        case tooFewPoints(found: Int)
        /// A lower limit above its upper limit, e.g. `bounds.min[0]` above `bounds.max[0]`.
        case greaterThan(value: Double, other: String, otherValue: Double)
        /// An id or name holds a control character (NUL, tab, CR, LF, ESC, DEL…).
        case controlCharacter
    }

    /// Name of the source the bytes came from, usually a file path.
    public var source: String
    /// The anchor or zone, when the error is inside one whose id is known.
    public var item: Item?
    /// Field path (`tagHeight`, `orientation.pitch`, `anchors[3].id`); nil for the file as a whole.
    public var field: String?
    /// What is wrong.
    public var reason: Reason

    /// - Parameters: source name, the anchor or zone (if any), field path (nil: the whole file), reason.
    public init(source: String, item: Item? = nil, field: String? = nil, reason: Reason) {
        self.source = source; self.item = item; self.field = field; self.reason = reason
    }

    /// `source: [anchor 'id': | zone 'id':] field 'path' reason`, or `source: the file reason`.
    public var description: String {
        var parts = [source]
        switch item {
        case .anchor(let id): parts.append("anchor '\(id)'")
        case .zone(let id): parts.append("zone '\(id)'")
        case nil: break
        }
        let subject = field.map { "field '\($0)'" } ?? "the file"
        parts.append("\(subject) \(predicate)")
        return parts.joined(separator: ": ")
    }

    private var predicate: String {
        switch reason {
        case .invalidJSON(let message): "is not valid JSON: \(message)"
        case .missing: "is missing"
        case .wrongType(let expected, let found): "must be \(expected), found \(found)"
        case .notFinite: "is not a finite number"
        case .wrongCount(let expected, let found, let of): "must have \(expected) \(of), found \(found)"
        case .requiredWhen2D: "is required when dimensions is 2"
        case .notAllowed(let found, let allowed): "must be \(allowed), found \(found)"
        case .outOfRange(let value, let range): "is \(SiteJSONNumber.format(value)), must be \(range)"
        case .unknownTechnology(let name):
            "has unknown technology '\(name)' (known: \(Technology.allCases.map(\.rawValue).joined(separator: ", ")))"
        case .empty: "must not be empty"
        case .repeated(let name): "lists '\(name)' more than once"
        case .duplicateID(let first): "duplicates the id of \(first)"
        case .tooFewPoints(let found): "must have at least 3 points, found \(found)"
        case .greaterThan(let value, let other, let otherValue):
            "is \(SiteJSONNumber.format(value)), greater than '\(other)' (\(SiteJSONNumber.format(otherValue)))"
        case .controlCharacter: "holds a control character (NUL, tab, CR, LF, ESC, DEL…), which ids and names may not"
        }
    }
}
