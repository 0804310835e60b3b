public import Positioning
public import Store
public import Pipeline
public import Wire

/// What a feed client's full queue does with the next line.
public enum OverflowPolicy: String, Sendable, Equatable, CaseIterable {
    /// Drop the oldest queued lines; the client then reads `# dropped N lines` where they were.
    case dropOldest = "drop-oldest"
    /// Close the connection (the client reconnects and gets a fresh snapshot).
    case disconnect
}

/// The settings of `sextant serve`. Every field has a documented default; times in seconds.
public struct ServiceConfig: Sendable, Equatable {
    /// IPv4 or IPv6 address the listeners bind to. Default `127.0.0.1`: loopback only (`::1` for IPv6
    /// loopback); `0.0.0.0` for every IPv4 interface, `::` for every interface. IPv6 may be written
    /// in brackets (`[::1]`).
    public var bindAddress = "127.0.0.1"
    /// TCP port gateways send ingest lines to (default 7400; 0: any free port).
    public var ingestPort: UInt16 = 7400
    /// TCP port dashboards read the feed from (default 7401; 0: any free port).
    public var feedPort: UInt16 = 7401
    /// Where the HTTP port (live map, REST, WebSocket and SSE streams, metrics) listens; nil: off.
    /// The commands' config (`sextant serve`) starts from `HTTPEndpoint.standard`, 127.0.0.1:7402,
    /// loopback only; a `ServiceConfig()` made in code has it off. `bindAddress` does not apply to it.
    public var http: HTTPEndpoint?
    /// Seconds between heartbeats on an HTTP stream (default 5).
    public var httpHeartbeat: Double = 5
    /// Directory of the SQLite database (`sextant.sqlite`), created if needed (default `./sextant-data`).
    public var dataDirectory = "./sextant-data"
    /// The history database: nil for the SQLite file in `dataDirectory` (the default), or a
    /// PostgreSQL URL, `postgres://user:password@host:port/database` (docs/storage.md).
    public var database: String?
    /// Site files, or directories of `*.json` site files, imported at start. Empty: `Sites/` when it exists.
    public var sitePaths: [String] = []
    /// A tag with no measurement for this long is removed (default 10 s).
    public var tagTimeout: Double = 10
    /// At most one output line per tag per interval (default 0.1 s).
    public var outputInterval: Double = 0.1
    /// A ranging line more than this older than its tag's latest is refused as `late` (default 1 s;
    /// `EngineConfig.maxLateness`).
    public var maxLateness: Double = 1
    /// An anchor heard before and then silent for this long is logged as a warning and counted in
    /// `anchors_silent` (default 30 s; 0: off).
    public var anchorSilence: Double = 30
    /// Learn anchor range biases online (default true).
    public var learnBias = true
    /// Lines a feed client may have queued before `overflow` applies (default 65,536).
    public var feedQueueLines = 65_536
    /// What a full feed queue does (default drop-oldest).
    public var overflow = OverflowPolicy.dropOldest
    /// Longest time a feed line is held so that the lines of a burst share a send, seconds (default
    /// 0.001; 0: none). A channel's lines wait 4 µs per subscriber of it (about what a send costs the
    /// loop), at most this long: one dashboard gets each line at once, 200 share their sends.
    public var feedFlushHold: Double = 0.001
    /// How long a new feed client may take to send its subscription line (default 0.2 s); after that it
    /// gets everything.
    public var subscriptionWait: Double = 0.2
    /// Also store every accepted raw ingest line, so a period can be replayed (default false).
    public var recordMeasurements = false
    /// Longest ingest line, bytes (default 65,536); longer lines are rejected as `line_too_long`.
    public var maxLineLength = 65_536
    /// At most this many `# rejected line N: …` replies per second per ingest connection (default 20);
    /// the others are counted, and summarised in the next reply.
    public var rejectionRepliesPerSecond: Double = 20
    /// Bytes of replies kept for an ingest connection that does not read them (default 16 KiB).
    public var rejectionReplyBuffer = 16_384
    /// Rows per SQLite transaction of the history writer (default 4096).
    public var historyBatchSize = 4096
    /// Longest time a position waits before its batch is committed (default 0.2 s).
    public var historyMaxDelay: Double = 0.2
    /// Retention while serving: days positions keep their full rate (and raw lines are kept).
    /// Retention is off unless this or `retentionKeepDays` is set (default nil: off); when only the
    /// other is set, this is 7 days, or `retentionKeepDays` if that is shorter.
    public var retentionFullDays: Double?
    /// Retention while serving: days positions (thinned to 1 Hz after `retentionFullDays`) and zone
    /// events are kept at all. Default nil: off; when only `retentionFullDays` is set, 90 days, or
    /// `retentionFullDays` if that is longer.
    public var retentionKeepDays: Double?
    /// Seconds between retention passes (default 60); each pass runs in transactions of at most 10,000 rows.
    public var retentionInterval: Double = 60

    // Limits a client cannot exceed.
    /// Lines per second one ingest connection may send (0, the default: no limit). Lines beyond it
    /// are rejected as `rate_limited`; a burst of one second's worth is allowed.
    public var maxLinesPerSecond: Double = 0
    /// Ingest connections open at once (default 4096); more are refused with `# error: …`.
    public var maxIngestConnections = 4096
    /// Feed clients connected at once (default 1024).
    public var maxFeedClients = 1024
    /// Connections from one IP address at once, on each port: up to this many to the ingest port and as
    /// many again to the feed port (default 2048), so gateways cannot lock dashboards out, nor the reverse.
    public var maxConnectionsPerAddress = 2048
    /// Tags one site tracks at once (default 100,000); lines that would start another are rejected
    /// as `too_many_tags`.
    public var maxTagsPerSite = 100_000
    /// How far ahead of the server's clock a line's timestamp may be, seconds (default 2; 0: no limit).
    /// Later lines are rejected as `clock_skew`: a gateway whose clock runs ahead would otherwise move
    /// its tags into the future, where the other gateways' lines no longer reach them.
    public var maxClockAhead: Double = 2
    /// How far behind the server's clock a line's timestamp may be, seconds (default 0: no limit, since
    /// a replayed recording or a gateway that stores and forwards sends old timestamps). Older lines
    /// are rejected as `clock_skew`.
    public var maxClockBehind: Double = 0
    /// Longest line a feed client may send (its subscription), bytes (default 65,536).
    public var maxSubscriptionLength = 65_536
    /// Most sites and tags one subscription may name (default 10,000).
    public var maxSubscriptionItems = 10_000
    /// Most tags whose last position is remembered for the snapshot of new feed clients (default
    /// 100,000). When full, a new tag's positions are still sent live but not remembered until a
    /// remembered tag is forgotten (removed, or its position older than `tagTimeout` by the engine's clock).
    public var maxRememberedTags = 100_000

    // Authentication.
    /// Tokens of the gateways; when any is set, an ingest connection's first line must be
    /// `auth SECRET` (default: none, no authentication).
    public var ingestTokens = AccessList()
    /// Tokens of the feed clients (dashboards, `sextant status`); when any is set, a feed
    /// connection's first line must be `auth SECRET` (default: none).
    public var feedTokens = AccessList()
    /// How long a connection may take to send its `auth` line before it is closed (default 5 s).
    public var authTimeout: Double = 5
    /// The unit of ingest timestamps, until a connection's `#precision` line changes it for that
    /// connection: `ns` (default), `us`, `ms` or `s`.
    public var timestampPrecision = TimestampPrecision.ns
    /// Without gateway tokens: an ingest connection that sends nothing (not even a blank line) for
    /// this long is closed (default 900 s; 0: never). With tokens, `authTimeout` bounds the wait for
    /// the first line instead.
    public var ingestIdleTimeout: Double = 900
    /// MQTT in and out through a broker (default nil: off); see docs/mqtt.md.
    public var mqtt: MQTTConfig?
    /// Cluster mode (default nil: off): instances sharing the broker of `mqtt` and the PostgreSQL
    /// `database` divide the sites; see docs/scaling.md.
    public var cluster: ClusterConfig?

    public init() {}

    /// The retention the service applies while it runs, or nil when both day counts are unset.
    public var retentionPolicy: RetentionPolicy? {
        guard retentionFullDays != nil || retentionKeepDays != nil else { return nil }
        let keep = retentionKeepDays ?? max(90, retentionFullDays ?? 0)
        let full = retentionFullDays ?? min(7, keep)
        return RetentionPolicy(fullRate: Nanoseconds(saturatingSeconds: full * 86_400), keep: Nanoseconds(saturatingSeconds: keep * 86_400))
    }

    /// The window of timestamps accepted from lines received at `reference` (Unix nanoseconds), or nil
    /// when neither `maxClockAhead` nor `maxClockBehind` is set.
    public func timestampWindow(reference: Nanoseconds) -> TimestampWindow? {
        guard maxClockAhead > 0 || maxClockBehind > 0 else { return nil }
        // Saturated below 2^63 ns (292 years): a huge limit is no limit, not a trap.
        func ns(_ s: Double) -> Nanoseconds? { s > 0 ? Nanoseconds(min(s * 1e9, 9.2e18)) : nil }
        return TimestampWindow(reference: reference, ahead: ns(maxClockAhead), behind: ns(maxClockBehind))
    }

    /// The engine settings these options imply.
    public var engine: EngineConfig {
        var c = EngineConfig()
        c.tagTimeout = tagTimeout
        c.outputInterval = outputInterval
        c.maxLateness = maxLateness
        c.learnBias = learnBias
        c.maxTagsPerSite = maxTagsPerSite
        return c
    }

    /// Checks ranges (`ServiceConfig.settings`) and what else a value must be; the message names the setting.
    public func validate() throws(ConfigError) {
        func check(_ ok: Bool, _ key: String, _ message: String) throws(ConfigError) {
            if !ok { throw ConfigError(key: key, message: message) }
        }
        for setting in Self.settings where !setting.isValid(self) {
            throw ConfigError(key: setting.key, message: "must be " + (setting.range?.text ?? "valid"))
        }
        try check(!dataDirectory.isEmpty, "dataDirectory", "must not be empty")
        try check(!dataDirectory.utf8.contains(0), "dataDirectory", "must not contain a NUL byte")
        if let database {
            try check(HistoryDatabase.isPostgres(database), "database", "must be a postgres:// or postgresql:// URL")
            try check(!database.utf8.contains(0), "database", "must not contain a NUL byte")
        }
        try check(!sitePaths.contains { $0.isEmpty || $0.utf8.contains(0) }, "sites", "must be non-empty paths")
        try mqtt?.validate()
        if let cluster {
            try cluster.validate()
            try check(mqtt != nil, "cluster", "needs \"mqtt\" (or --mqtt): the instances share the sites' ingest through the broker")
            try check(HistoryDatabase.isPostgres(database), "cluster",
                      "needs a PostgreSQL \"database\" (or --database postgres://…): the instances share ownership and history there")
        }
        try ingestTokens.validate(key: "ingestTokens")
        try feedTokens.validate(key: "feedTokens")
        if let d = retentionKeepDays {
            try check(d >= (retentionFullDays ?? 0), "retentionKeepDays", "must be at least retentionFullDays")
        }
        do { _ = try Socket.address(host: bindAddress, port: 0) } catch {
            throw ConfigError(key: "bind", message: "'\(bindAddress)' is not an IPv4 or IPv6 address")
        }
    }
}

/// A configuration value that is missing, of the wrong type or out of range.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The setting, as named in the JSON file (e.g. `feedQueueLines`).
    public var key: String
    public var message: String
    public init(key: String, message: String) { self.key = key; self.message = message }
    public var description: String { "'\(key)' \(message)" }
}
