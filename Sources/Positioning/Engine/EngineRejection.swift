/// Why the engine refused an event that decoded correctly.
public enum EngineRejection: Error, Equatable, CustomStringConvertible {
    case unknownSite(String)
    case unknownAnchor(site: String, anchor: String)
    case unsupportedTechnology(anchor: String, technology: Technology)
    /// A new tag would take the site over `EngineConfig.maxTagsPerSite`.
    case tooManyTags(site: String, limit: Int)
    /// A ranging line older than its tag's filter by more than `EngineConfig.maxLateness` (seconds).
    /// (No ids: the line names them, and a larger error costs every line that can throw it.)
    case late(seconds: Double, limit: Double)

    /// Every key, so counters can be created up front.
    public static let allKeys = ["unknown_site", "unknown_anchor", "unsupported_technology", "too_many_tags", "late"]

    /// A stable snake_case name for counters.
    public var key: String {
        switch self {
        case .unknownSite: "unknown_site"
        case .unknownAnchor: "unknown_anchor"
        case .unsupportedTechnology: "unsupported_technology"
        case .tooManyTags: "too_many_tags"
        case .late: "late"
        }
    }

    public var description: String {
        switch self {
        case .unknownSite(let s): "unknown site '\(s)'"
        case .unknownAnchor(let s, let a): "unknown anchor '\(a)' in site '\(s)'"
        case .unsupportedTechnology(let a, let t): "anchor '\(a)' does not range with '\(t.rawValue)'"
        case .tooManyTags(let s, let limit): "site '\(s)' already tracks \(limit) tags, its limit; new tags are refused"
        case .late(let seconds, let limit):
            "measured \((seconds * 1000).rounded() / 1000) s before the latest line of its tag, more than the "
                + "\(limit) s a line may arrive late; not used"
        }
    }
}
