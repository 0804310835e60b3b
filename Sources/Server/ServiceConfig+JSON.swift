import Foundation
import Wire

extension ServiceConfig {
    /// Every setting, in the order the help and the docs list them: the JSON key, its range or accepted
    /// values, and the `serve` flag that sets it. Declared once here (see `ConfigSetting` for how to add one).
    public static let settings: [ConfigSetting] = [
        .text("bind", \.bindAddress, flag: SettingFlag("bind", "ADDR", help: """
            IPv4 or IPv6 address to listen on (::1 or [::1] for IPv6 loopback, 0.0.0.0 or :: for every \
            interface; the ports are set apart, with --ingest-port and --feed-port)
            """)),
        .port("ingestPort", \.ingestPort, flag: SettingFlag("ingest-port", "P", help: "gateway port (0: any free port, logged)")),
        .port("feedPort", \.feedPort, flag: SettingFlag("feed-port", "P", help: "feed port (0: any free port, logged)")),
        .endpoint("http", \.http, flag: SettingFlag("http", "ADDR:PORT", help: """
            the HTTP port: live map at /, REST under /api/v1/, WebSocket and SSE streams, /metrics, \
            /healthz, /readyz (loopback unless told otherwise, whatever --bind says; 0: off; docs/web.md)
            """)),
        .number("httpHeartbeat", \.httpHeartbeat, SettingRange(0.01, 3600, unit: "seconds")),
        .text("dataDirectory", \.dataDirectory, flag: SettingFlag("data-dir", "DIR", help: "data directory, where sextant.sqlite lives")),
        .optionalText("database", \.database, defaultText: "none (SQLite)", flag: SettingFlag("database", "URL", help: """
            the history in PostgreSQL (postgres://user:password@host:port/database) instead of the SQLite \
            file in the data directory (docs/storage.md)
            """)),
        .paths("sites", \.sitePaths, defaultText: "Sites/ when it exists", flag: SettingFlag("site", "FILE|DIR", help: """
            site file, or directory of *.json site files, to import (repeatable). Imported sites replace \
            stored ones with the same id; stored sites stay. With no site at all, the embedded demo \
            warehouse is served.
            """, repeatable: true)),
        .number("tagTimeout", \.tagTimeout, SettingRange(0.1, 86_400, unit: "seconds"), flag: SettingFlag(
            "tag-timeout", "S", help: "remove a tag after S seconds without measurements")),
        .number("outputInterval", \.outputInterval, SettingRange(0, 3600, unit: "seconds"), flag: SettingFlag(
            "output-interval", "S", help: "at most one line per tag every S seconds (0: every update)")),
        .number("maxLateness", \.maxLateness, SettingRange(0, 3600, unit: "seconds"), flag: SettingFlag(
            "max-lateness", "S",
            help: "refuse as 'late' a ranging line more than S seconds older than the latest line of its tag")),
        .number("anchorSilence", \.anchorSilence, SettingRange(0, 86_400, unit: "seconds", note: "0: off"), flag: SettingFlag(
            "anchor-silence", "S", help: """
            warn when an anchor that was heard is silent for S seconds, and count it in anchors_silent \
            (0: off); see 'sextant status --anchors'
            """)),
        .boolean("learnBias", \.learnBias, flag: SettingFlag("no-bias-learning", nil, help: "do not learn anchor range biases online"),
                 flagSets: false),
        .integer("feedQueueLines", \.feedQueueLines, SettingRange(16, 10_000_000), flag: SettingFlag(
            "feed-queue", "N", help: "lines queued per feed client before overflow")),
        .choice("overflow", \.overflow, flag: SettingFlag("overflow", "POLICY", help: """
            what a full feed queue does: drop-oldest (the client reads '# dropped N lines') or disconnect
            """)),
        .number("subscriptionWait", \.subscriptionWait, SettingRange(0, 60, unit: "seconds"), flag: SettingFlag(
            "subscription-wait", "S", help: "how long a feed client may take to subscribe")),
        .number("feedFlushHold", \.feedFlushHold, SettingRange(0, 0.1, unit: "seconds", note: "0: no hold")),
        .boolean("recordMeasurements", \.recordMeasurements, flag: SettingFlag(
            "record-measurements", nil, help: "also store every accepted raw ingest line (for a later replay)")),
        .integer("maxLineLength", \.maxLineLength, SettingRange(256, 16_777_216, unit: "bytes")),
        .number("rejectionRepliesPerSecond", \.rejectionRepliesPerSecond, SettingRange(0, 1e6)),
        .integer("rejectionReplyBuffer", \.rejectionReplyBuffer, SettingRange(256, 16_777_216, unit: "bytes")),
        .integer("historyBatchSize", \.historyBatchSize, SettingRange(1, 100_000)),
        .number("historyMaxDelay", \.historyMaxDelay, SettingRange(0, 60, excludingLower: true, unit: "seconds")),
        .optionalNumber("retentionFullDays", \.retentionFullDays, SettingRange(0, 36_500, unit: "days"),
                        defaultText: "off; 7 once retention is on", flag: SettingFlag("retention-full-days", "D", help: """
            retention while serving: positions keep their full rate for D days, and raw lines are kept as long
            """)),
        .optionalNumber("retentionKeepDays", \.retentionKeepDays, SettingRange(0, 36_500, excludingLower: true, unit: "days"),
                        defaultText: "off; 90 once retention is on", flag: SettingFlag("retention-keep-days", "D", help: """
            retention while serving: positions are thinned to one per tag per second after the full-rate \
            days and deleted after D days, zone events too. Either option turns retention on: the rules \
            of 'sextant history --prune', applied every minute (JSON 'retentionInterval', seconds) on a \
            thread of their own, in transactions of at most 10,000 rows. Without it the history grows \
            until pruned from outside.
            """)),
        .number("retentionInterval", \.retentionInterval, SettingRange(0.01, 86_400, unit: "seconds")),
        .number("maxLinesPerSecond", \.maxLinesPerSecond, SettingRange(0, 1e9, note: "0: no limit"), flag: SettingFlag(
            "max-lines-per-second", "N", help: "lines per second one ingest connection may send (0: no limit)")),
        .integer("maxIngestConnections", \.maxIngestConnections, SettingRange(1, 1_000_000)),
        .integer("maxFeedClients", \.maxFeedClients, SettingRange(1, 1_000_000)),
        .integer("maxConnectionsPerAddress", \.maxConnectionsPerAddress, SettingRange(1, 1_000_000)),
        .integer("maxTagsPerSite", \.maxTagsPerSite, SettingRange(1, 100_000_000), flag: SettingFlag(
            "max-tags-per-site", "N", help: "tags one site may track at once")),
        .number("maxClockAhead", \.maxClockAhead, SettingRange(0, 1e9, unit: "seconds", note: "0: no limit"), flag: SettingFlag(
            "max-clock-ahead", "S", help: """
            reject a line stamped more than S seconds ahead of the server's clock as clock_skew (0: no \
            limit). A gateway whose clock runs ahead would otherwise stall its tags. The first such line \
            of a connection is logged as a warning
            """)),
        .number("maxClockBehind", \.maxClockBehind, SettingRange(0, 1e9, unit: "seconds", note: "0: no limit"), flag: SettingFlag(
            "max-clock-behind", "S", help: """
            reject a line stamped more than S seconds behind the server's clock as clock_skew (0: no \
            limit, since replayed recordings and store-and-forward gateways send old timestamps)
            """)),
        .integer("maxSubscriptionLength", \.maxSubscriptionLength, SettingRange(64, 16_777_216, unit: "bytes")),
        .integer("maxSubscriptionItems", \.maxSubscriptionItems, SettingRange(1, 10_000_000)),
        .integer("maxRememberedTags", \.maxRememberedTags, SettingRange(0, 10_000_000, note: "0: no snapshot")),
        .tokens("ingestTokens", \.ingestTokens),
        .tokens("feedTokens", \.feedTokens),
        .number("authTimeout", \.authTimeout, SettingRange(0, 3600, excludingLower: true, unit: "seconds")),
        .choice("timestampPrecision", \.timestampPrecision, flag: SettingFlag("precision", "UNIT", help: """
            the unit of ingest timestamps: ns, us, ms or s; a connection may change its own with a first \
            line '#precision ms'. A timestamp outside 2000-2100 once read in its unit is refused, with a \
            key naming the unit it looks like (timestamp_looks_like_ms, ...)
            """)),
        .number("ingestIdleTimeout", \.ingestIdleTimeout, SettingRange(0, 86_400, unit: "seconds", note: "0: never")),
        // The serve flags --mqtt, --mqtt-prefix, --mqtt-format and --mqtt-instance change parts of it.
        .object("mqtt", defaultText: "off") { v, c throws(ConfigError) in c.mqtt = try MQTTConfig(json: v) },
        // The serve flag --cluster sets its instance.
        .object("cluster", defaultText: "off") { v, c throws(ConfigError) in c.cluster = try ClusterConfig(json: v) },
    ]

    /// The keys a JSON config file may hold (each the name of a field of `ServiceConfig`, `bind` for
    /// `bindAddress`, `sites` for `sitePaths`, `overflow` as `"drop-oldest"` or `"disconnect"`).
    public static let jsonKeys = settings.map(\.key)

    /// The setting of a JSON key, or nil.
    public static func setting(key: String) -> ConfigSetting? { settings.first { $0.key == key } }

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
        for setting in Self.settings {
            if let value = object[setting.key] { try setting.apply(json: value, to: &self) }
        }
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
