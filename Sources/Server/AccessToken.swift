/// A secret that lets a gateway (ingest) or a dashboard (feed) in: named for the logs, and optionally
/// restricted to some sites.
///
/// A connection to a port that has tokens must send `auth SECRET` as its first line. On the ingest
/// port, a token with `sites` may only write those sites' lines (others are rejected as
/// `site_not_allowed`); on the feed port, it only reads those sites.
public struct AccessToken: Sendable, Equatable {
    /// Who holds it, as logged (e.g. `gateway-dock-1`). Not secret.
    public var name: String
    /// The secret itself: at least `minimumSecretLength` printable characters without spaces.
    public var secret: String
    /// The sites the token covers; nil: every site.
    public var sites: Set<String>?

    /// Shortest secret accepted, characters: long enough not to be guessed over a network.
    public static let minimumSecretLength = 16

    public init(name: String, secret: String, sites: Set<String>? = nil) {
        self.name = name; self.secret = secret; self.sites = sites
    }
}

/// The tokens of one port, and the check of an `auth` line against them.
public struct AccessList: Sendable, Equatable {
    public var tokens: [AccessToken]

    public init(_ tokens: [AccessToken] = []) { self.tokens = tokens }

    /// True when connections must authenticate (some token is configured).
    public var isRequired: Bool { !tokens.isEmpty }

    /// The outcome of a connection's first line.
    public enum Verdict: Equatable {
        case accepted(AccessToken)
        /// The line is not `auth SECRET`.
        case notAnAuthLine
        /// No token has this secret.
        case unknownSecret
    }

    /// Checks a first line (without its newline; a trailing `\r` and surrounding blanks are ignored).
    /// Every token's secret is compared in full, so the time taken does not tell how much matched.
    public func check(line: some Collection<UInt8>) -> Verdict {
        let words = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D })
        guard words.count == 2, words[0].elementsEqual("auth".utf8) else { return .notAnAuthLine }
        let presented = Array(words[1])
        var found: AccessToken?
        for token in tokens where Self.constantTimeEqual(Array(token.secret.utf8), presented) {
            found = token
        }
        return found.map(Verdict.accepted) ?? .unknownSecret
    }

    /// Compares two byte strings in time that depends only on their lengths.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }

    /// Checks the tokens: non-empty names, unique names and secrets, secrets long enough and without
    /// blanks, site lists not empty.
    /// - Parameter key: the setting's name, for the message.
    func validate(key: String) throws(ConfigError) {
        var names = Set<String>(), secrets = Set<String>()
        for (i, t) in tokens.enumerated() {
            let label = "\(key)[\(i)]"
            if t.name.isEmpty { throw ConfigError(key: label, message: "needs a non-empty \"name\"") }
            if !names.insert(t.name).inserted {
                throw ConfigError(key: label, message: "repeats the name '\(t.name)'")
            }
            if t.secret.count < AccessToken.minimumSecretLength {
                throw ConfigError(key: label, message: "'\(t.name)': the token must have at least "
                                  + "\(AccessToken.minimumSecretLength) characters")
            }
            if t.secret.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
                throw ConfigError(key: label, message: "'\(t.name)': the token must not contain blanks or control characters")
            }
            if !secrets.insert(t.secret).inserted {
                throw ConfigError(key: label, message: "'\(t.name)': the token is the same as another one's")
            }
            if let s = t.sites, s.isEmpty {
                throw ConfigError(key: label, message: "'\(t.name)': \"sites\" must list at least one site (omit it for all)")
            }
        }
    }
}
