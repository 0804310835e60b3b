/// The topics of docs/mqtt.md: building them, and reading the site out of an ingest topic.
///
/// A site or tag id becomes one topic level: `/`, `+`, `#` and `%` in it (which would add a level, be
/// refused as wildcards, or be ambiguous) are written as `%2F`, `%2B`, `%23` and `%25`.
enum MQTTTopic {
    /// `<prefix>/+/ingest`: every site's ingest topic (unknown sites are counted, not ignored).
    static func ingestPattern(prefix: String) -> String { "\(prefix)/+/ingest" }

    /// `<prefix>/<site>/rejected`.
    static func rejected(prefix: String, site: String) -> String { "\(prefix)/\(level(site))/rejected" }

    /// `<prefix>/status/<instance>`.
    static func status(prefix: String, instance: String) -> String { "\(prefix)/status/\(instance)" }

    /// `<prefix>/<site>/tags/<tag>/` (the kind follows).
    static func tagBase(prefix: String, site: String, tag: String) -> String {
        "\(prefix)/\(level(site))/tags/\(level(tag))/"
    }

    /// The site of `<prefix>/<site>/ingest`, or nil for another topic.
    static func site(ofIngest topic: String, prefix: String) -> String? {
        guard topic.hasPrefix(prefix + "/"), topic.hasSuffix("/ingest") else { return nil }
        let start = topic.index(topic.startIndex, offsetBy: prefix.count + 1)
        let end = topic.index(topic.endIndex, offsetBy: -7)
        guard start < end else { return nil }
        let level = topic[start..<end]
        guard !level.utf8.contains(UInt8(ascii: "/")) else { return nil }   // bytes: not Foundation's substring search
        return unescape(level)
    }

    /// An id as one topic level.
    static func level(_ id: String) -> String {
        guard id.utf8.contains(where: { $0 == 0x2F || $0 == 0x2B || $0 == 0x23 || $0 == 0x25 }) else { return id }
        var out = ""
        for c in id.unicodeScalars {
            switch c {
            case "/": out += "%2F"
            case "+": out += "%2B"
            case "#": out += "%23"
            case "%": out += "%25"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The id of one topic level (the inverse of `level`).
    static func unescape(_ level: Substring) -> String {
        guard level.utf8.contains(UInt8(ascii: "%")) else { return String(level) }
        return level.replacingOccurrences(of: "%2F", with: "/").replacingOccurrences(of: "%2B", with: "+")
            .replacingOccurrences(of: "%23", with: "#").replacingOccurrences(of: "%25", with: "%")
    }
}
