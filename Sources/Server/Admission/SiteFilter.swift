/// The sites a source may write, as its token says, in the form checked for every line: a token of
/// one site (an MQTT site topic, most restricted gateway tokens) is one string comparison instead of
/// a hash of the line's site.
enum SiteFilter: Equatable {
    /// Any site (no token, or a token without `sites`).
    case any
    /// This site only.
    case one(String)
    /// These sites only.
    case some(Set<String>)

    /// - Parameter sites: a token's `sites` (nil: any).
    init(_ sites: Set<String>?) {
        guard let sites else { self = .any; return }
        if sites.count == 1, let only = sites.first { self = .one(only) } else { self = .some(sites) }
    }

    /// True when a line of `site` may be written.
    func allows(_ site: String) -> Bool {
        switch self {
        case .any: return true
        case .one(let only): return site == only
        case .some(let sites): return sites.contains(site)
        }
    }
}
