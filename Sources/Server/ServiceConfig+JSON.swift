import Foundation
import Wire

extension ServiceConfig {
    /// The keys a JSON config file may hold (each the name of a field of `ServiceConfig`, `bind` for
    /// `bindAddress`, `sites` for `sitePaths`, `overflow` as `"drop-oldest"` or `"disconnect"`).
    public static let jsonKeys = ["bind", "ingestPort", "feedPort", "http", "httpHeartbeat", "dataDirectory", "sites", "tagTimeout",
                                  "outputInterval", "maxLateness", "anchorSilence", "learnBias", "feedQueueLines", "overflow", "subscriptionWait",
                                  "recordMeasurements", "maxLineLength", "rejectionRepliesPerSecond",
                                  "rejectionReplyBuffer", "historyBatchSize", "historyMaxDelay",
                                  "maxLinesPerSecond", "maxIngestConnections", "maxFeedClients",
                                  "maxConnectionsPerAddress", "maxTagsPerSite", "maxClockAhead", "maxClockBehind",
                                  "maxSubscriptionLength",
                                  "maxSubscriptionItems", "maxRememberedTags", "ingestTokens", "feedTokens", "authTimeout",
                                  "ingestIdleTimeout", "timestampPrecision",
                                  "retentionFullDays", "retentionKeepDays", "retentionInterval"]

    /// Applies the settings of a JSON config file (an object; absent keys keep their value).
    ///
    ///     {"bind": "0.0.0.0", "ingestPort": 7400, "feedPort": 7401, "dataDirectory": "/var/lib/sextant",
    ///      "sites": ["Sites"], "feedQueueLines": 65536, "overflow": "drop-oldest", "recordMeasurements": true}
    ///
    /// - Throws: `ConfigError` naming the key for an unknown key, a wrong type or a value out of range.
    public mutating func apply(json: [UInt8]) throws(ConfigError) {
        let object: [String: Any]
        do {
            guard let o = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
                throw ConfigError(key: "(file)", message: "must hold a JSON object")
            }
            object = o
        } catch let e as ConfigError {
            throw e
        } catch {
            throw ConfigError(key: "(file)", message: "is not valid JSON (\(error.localizedDescription))")
        }
        for key in object.keys.sorted() where !Self.jsonKeys.contains(key) {
            throw ConfigError(key: key, message: "is not a setting (known: \(Self.jsonKeys.joined(separator: ", ")))")
        }
        // Foundation gives JSON's true and false as NSNumbers that also cast to Double and Int (1 and
        // 0), and numbers that also cast to Bool: the boolean ones say so by their type code, "c".
        func isBoolean(_ v: Any) -> Bool { (v as? NSNumber).map { String(cString: $0.objCType) == "c" } ?? false }
        func number(_ key: String) throws(ConfigError) -> Double? {
            guard let v = object[key] else { return nil }
            guard !isBoolean(v) else { throw ConfigError(key: key, message: "must be a number") }
            if let d = v as? Double { return d }
            if let i = v as? Int { return Double(i) }
            throw ConfigError(key: key, message: "must be a number")
        }
        func integer(_ key: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int? {
            guard let d = try number(key) else { return nil }
            // `Int(exactly:)`, not a comparison with `Double(range.upperBound)`: `Double(Int.max)` is 2^63,
            // which `Int(_:)` cannot hold (a crash, kept as a regression test in ConfigTests).
            guard let i = Int(exactly: d), range.contains(i) else {
                throw ConfigError(key: key, message: "must be an integer between \(range.lowerBound) and \(range.upperBound)")
            }
            return i
        }
        func string(_ key: String) throws(ConfigError) -> String? {
            guard let v = object[key] else { return nil }
            guard let s = v as? String else { throw ConfigError(key: key, message: "must be a string") }
            return s
        }
        func bool(_ key: String) throws(ConfigError) -> Bool? {
            guard let v = object[key] else { return nil }
            guard isBoolean(v), let b = v as? Bool else { throw ConfigError(key: key, message: "must be true or false") }
            return b
        }
        if let v = try string("bind") { bindAddress = v }
        if let v = try integer("ingestPort", 0...65535) { ingestPort = UInt16(v) }
        if let v = try integer("feedPort", 0...65535) { feedPort = UInt16(v) }
        if let v = try number("httpHeartbeat") { httpHeartbeat = v }
        if let v = object["http"] {
            if let n = v as? Int, n == 0, !isBoolean(v) { http = nil }
            else if let text = v as? String { http = try HTTPEndpoint.parse(text) }
            else { throw ConfigError(key: "http", message: "must be \"ADDR:PORT\" (e.g. \"127.0.0.1:7402\") or 0 for off") }
        }
        if let v = try string("dataDirectory") { dataDirectory = v }
        if let v = object["sites"] {
            guard let list = v as? [String] else { throw ConfigError(key: "sites", message: "must be a list of paths") }
            sitePaths = list
        }
        if let v = try number("tagTimeout") { tagTimeout = v }
        if let v = try number("outputInterval") { outputInterval = v }
        if let v = try number("maxLateness") { maxLateness = v }
        if let v = try number("anchorSilence") { anchorSilence = v }
        if let v = try bool("learnBias") { learnBias = v }
        if let v = try integer("feedQueueLines", 0...Int.max) { feedQueueLines = v }
        if let v = try string("overflow") {
            guard let p = OverflowPolicy(rawValue: v) else {
                throw ConfigError(key: "overflow", message: "must be \"drop-oldest\" or \"disconnect\", not \"\(v)\"")
            }
            overflow = p
        }
        if let v = try number("subscriptionWait") { subscriptionWait = v }
        if let v = try bool("recordMeasurements") { recordMeasurements = v }
        if let v = try integer("maxLineLength", 0...Int.max) { maxLineLength = v }
        if let v = try number("rejectionRepliesPerSecond") { rejectionRepliesPerSecond = v }
        if let v = try integer("rejectionReplyBuffer", 0...Int.max) { rejectionReplyBuffer = v }
        if let v = try integer("historyBatchSize", 0...Int.max) { historyBatchSize = v }
        if let v = try number("historyMaxDelay") { historyMaxDelay = v }
        if let v = try number("maxLinesPerSecond") { maxLinesPerSecond = v }
        if let v = try integer("maxIngestConnections", 0...Int.max) { maxIngestConnections = v }
        if let v = try integer("maxFeedClients", 0...Int.max) { maxFeedClients = v }
        if let v = try integer("maxConnectionsPerAddress", 0...Int.max) { maxConnectionsPerAddress = v }
        if let v = try integer("maxTagsPerSite", 0...Int.max) { maxTagsPerSite = v }
        if let v = try number("maxClockAhead") { maxClockAhead = v }
        if let v = try number("maxClockBehind") { maxClockBehind = v }
        if let v = try integer("maxSubscriptionLength", 0...Int.max) { maxSubscriptionLength = v }
        if let v = try integer("maxSubscriptionItems", 0...Int.max) { maxSubscriptionItems = v }
        if let v = try integer("maxRememberedTags", 0...Int.max) { maxRememberedTags = v }
        if let v = try number("authTimeout") { authTimeout = v }
        if let v = try number("ingestIdleTimeout") { ingestIdleTimeout = v }
        if let v = try string("timestampPrecision") {
            guard let p = TimestampPrecision(rawValue: v) else {
                throw ConfigError(key: "timestampPrecision", message: "must be \(TimestampPrecision.names), not \"\(v)\"")
            }
            timestampPrecision = p
        }
        if let v = object["ingestTokens"] { ingestTokens = try Self.tokens(v, key: "ingestTokens") }
        if let v = object["feedTokens"] { feedTokens = try Self.tokens(v, key: "feedTokens") }
        if let v = try number("retentionFullDays") { retentionFullDays = v }
        if let v = try number("retentionKeepDays") { retentionKeepDays = v }
        if let v = try number("retentionInterval") { retentionInterval = v }
        try validate()
    }
}

extension ServiceConfig {
    /// Reads `[{"name": "gw-1", "token": "…", "sites": ["demo-warehouse"]}, …]` (`sites` optional).
    static func tokens(_ value: Any, key: String) throws(ConfigError) -> AccessList {
        guard let list = value as? [Any] else {
            throw ConfigError(key: key, message: "must be a list of {\"name\", \"token\", \"sites\"} objects")
        }
        var tokens: [AccessToken] = []
        for (i, item) in list.enumerated() {
            let label = "\(key)[\(i)]"
            guard let o = item as? [String: Any] else { throw ConfigError(key: label, message: "must be an object") }
            for k in o.keys.sorted() where !["name", "token", "sites"].contains(k) {
                throw ConfigError(key: label, message: "has unknown key '\(k)' (known: name, token, sites)")
            }
            guard let name = o["name"] as? String else { throw ConfigError(key: label, message: "needs a \"name\" string") }
            guard let secret = o["token"] as? String else {
                throw ConfigError(key: label, message: "needs a \"token\" string")
            }
            var sites: Set<String>?
            if let s = o["sites"] {
                guard let names = s as? [String] else {
                    throw ConfigError(key: label, message: "\"sites\" must be a list of site ids")
                }
                sites = Set(names)
            }
            tokens.append(AccessToken(name: name, secret: secret, sites: sites))
        }
        return AccessList(tokens)
    }
}
