/// A feed client's choice of lines: sites, tags and line kinds (nil: all).
///
/// Syntax of the optional first line a feed client sends:
///
///     subscribe [sites=S1,S2] [tags=T1,T2] [kinds=position,proximity,removed,zone]
///
/// Parts are separated by spaces, in any order; values by commas. A blank line, a bare `subscribe`, or
/// nothing at all within the subscription wait means everything.
public struct Subscription: Sendable, Hashable {
    /// The kinds of feed line.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case position, proximity, removed, zone
    }

    public var sites: Set<String>?
    public var tags: Set<String>?
    public var kinds: Set<Kind>?
    /// How lines are encoded (the TCP feed: line protocol; HTTP streams choose).
    public var format = FeedFormat.lineProtocol
    /// At most this many position (and proximity) lines per tag per second, always the latest (0: all).
    public var rate = 0

    /// Everything.
    public static let all = Subscription()

    public init(sites: Set<String>? = nil, tags: Set<String>? = nil, kinds: Set<Kind>? = nil) {
        self.sites = sites; self.tags = tags; self.kinds = kinds
    }

    /// True when a line of `kind` about `tag` in `site` is selected.
    @inline(__always)
    public func matches(site: String, tag: String, kind: Kind) -> Bool {
        (kinds?.contains(kind) ?? true) && (sites?.contains(site) ?? true) && (tags?.contains(tag) ?? true)
    }

    /// Parses a subscription line (without its newline; a trailing `\r` is ignored).
    /// - Parameter maxItems: most sites and tags the line may name together.
    /// - Throws: `SubscriptionError` with a message to send back.
    public static func parse(_ line: String, maxItems: Int = .max) throws(SubscriptionError) -> Subscription {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let first = words.first else { return .all }
        guard first == "subscribe" else {
            throw SubscriptionError(message: "expected 'subscribe [sites=a,b] [tags=T1,T2] [kinds=position,proximity,removed,zone]', got '\(first)'")
        }
        var s = Subscription()
        for word in words.dropFirst() {
            guard let eq = word.firstIndex(of: "=") else {
                throw SubscriptionError(message: "'\(word)' is not key=value")
            }
            let key = word[..<eq]
            let values = word[word.index(after: eq)...].split(separator: ",").map(String.init)
            guard !values.isEmpty else { throw SubscriptionError(message: "'\(key)' has no values") }
            switch key {
            case "sites", "site": s.sites = Set(values)
            case "tags", "tag": s.tags = Set(values)
            case "kinds", "kind":
                var kinds = Set<Kind>()
                for v in values {
                    guard let k = Kind(rawValue: v) else {
                        throw SubscriptionError(message: "unknown kind '\(v)' (expected position, proximity, removed, zone)")
                    }
                    kinds.insert(k)
                }
                s.kinds = kinds
            default:
                throw SubscriptionError(message: "unknown key '\(key)' (expected sites, tags, kinds)")
            }
        }
        let items = (s.sites?.count ?? 0) + (s.tags?.count ?? 0)
        if items > maxItems {
            throw SubscriptionError(message: "the subscription names \(items) sites and tags, above the limit of \(maxItems)")
        }
        return s
    }
}

extension Subscription.Kind {
    /// One bit per kind, for `FeedClient.wants`.
    var bit: UInt8 {
        switch self {
        case .position: 1
        case .proximity: 2
        case .removed: 4
        case .zone: 8
        }
    }
    /// Every kind's bit.
    static let allBits: UInt8 = 15
}

/// A subscription line that could not be read.
public struct SubscriptionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
