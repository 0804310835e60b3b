public import Wire

/// The MQTT settings of `sextant serve` (config key `mqtt`, flags `--mqtt`, `--mqtt-prefix`,
/// `--mqtt-format`). See docs/mqtt.md for the topics.
public struct MQTTConfig: Sendable, Equatable {
    /// The MQTT protocol version spoken to the broker.
    public enum ProtocolVersion: String, Sendable, Equatable {
        case v5 = "5"
        case v311 = "3.1.1"
    }

    /// How outputs are written on an output prefix.
    public enum Format: String, Sendable, Equatable {
        /// One JSON object per message (`OutputJSON`), times in ISO 8601.
        case json
        /// One InfluxDB line-protocol line per message, as the TCP feed sends it.
        case lineProtocol = "lp"
    }

    /// One output prefix: `<prefix>/<site>/tags/<tag>/<kind>` in `format`.
    public struct Output: Sendable, Equatable {
        public var prefix: String
        public var format: Format
        public init(prefix: String, format: Format) { self.prefix = prefix; self.format = format }
    }

    /// Broker host name or address, and port (default 1883; 8883 with TLS).
    public var host = "127.0.0.1"
    public var port = 1883
    public var protocolVersion = ProtocolVersion.v5
    /// Names this instance: its status topic `<prefix>/status/<instance>` and client ids
    /// `<clientId>-in` / `<clientId>-out` (default `sextant`).
    public var instance = "sextant"
    /// Base of the client ids (default `sextant-<instance>`). The ingest client's id must stay the same
    /// across restarts: the broker keeps its session (and the QoS 1 messages queued for it) by this id.
    public var clientID: String?
    public var username: String?
    public var password: String?
    /// PEM file of the certificate authorities of the broker's certificate; set: TLS.
    public var caFile: String?
    /// The prefix of the ingest topics `<prefix>/<site>/ingest`, the rejection reports
    /// `<prefix>/<site>/rejected` and the status `<prefix>/status/<instance>` (default `sextant`).
    public var prefix = "sextant"
    /// The output prefixes and their formats (default: `prefix` in JSON).
    public var outputs: [Output]?
    /// QoS of the output messages (default 0; 1: the broker acknowledges each).
    public var outputQoS = 0
    /// MQTT 5: seconds the broker keeps the ingest session (and queues QoS 1 messages for it) while
    /// Sextant is away (default 3600). With MQTT 3.1.1 the broker's `persistent_client_expiration` applies.
    public var sessionExpiry = 3600
    /// Largest ingest message accepted, bytes (default 1 MiB); a larger one is dropped whole, counted
    /// (`mqtt_messages_too_large`) and reported on the rejection topic.
    public var maxMessageBytes = 1 << 20
    /// Output messages queued for the broker and not yet sent (QoS 0) or acknowledged (QoS 1) before
    /// further ones are dropped and counted (`mqtt_out_dropped`); default 100,000.
    public var maxQueuedMessages = 100_000
    /// Bytes of ingest messages received and not yet positioned before the client stops reading from
    /// the broker (back-pressure; the broker queues meanwhile); default 16 MiB.
    public var maxInboxBytes = 16 << 20
    /// The unit of ingest timestamps per site topic (default: `timestampPrecision`); a `#precision`
    /// line in a message changes it for the rest of that message.
    public var precision: [String: TimestampPrecision] = [:]
    /// Longest wait between reconnection attempts, seconds (the wait doubles from 0.25 s up to this).
    public var reconnectMaxDelay = 30.0
    /// Seconds between keep-alive pings.
    public var keepAlive = 30

    public init() {}

    /// The output prefixes in effect.
    public var effectiveOutputs: [Output] { outputs ?? [Output(prefix: prefix, format: .json)] }
    /// The client id base in effect.
    public var effectiveClientID: String { clientID ?? "sextant-\(instance)" }

    /// Reads `mqtt://host[:port]`, `mqtts://host[:port]` (TLS, default port 8883) or `host[:port]`.
    /// - Returns: host, port and whether TLS was asked for; nil when not of that form.
    public static func parseBroker(_ text: String) -> (host: String, port: Int, tls: Bool)? {
        var rest = Substring(text)
        var tls = false
        if rest.hasPrefix("mqtt://") { rest = rest.dropFirst(7) } else if rest.hasPrefix("mqtts://") {
            rest = rest.dropFirst(8); tls = true
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var host = rest, port = tls ? 8883 : 1883
        if rest.hasPrefix("[") {   // [IPv6]:port
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()) else { return nil }
                port = p
            }
        } else if let colon = rest.lastIndex(of: ":") {
            guard let p = Int(rest[rest.index(after: colon)...]) else { return nil }
            host = rest[..<colon]
            port = p
        }
        guard !host.isEmpty, !host.contains("/"), (1...65535).contains(port) else { return nil }
        return (String(host), port, tls)
    }

    /// Checks ranges and topic prefixes; the message names the setting (`mqtt.<key>`).
    public func validate() throws(ConfigError) {
        func check(_ ok: Bool, _ key: String, _ message: String) throws(ConfigError) {
            if !ok { throw ConfigError(key: "mqtt.\(key)", message: message) }
        }
        func validPrefix(_ p: String) -> Bool {
            !p.isEmpty && !p.hasSuffix("/") && !p.contains("+") && !p.contains("#") && !p.utf8.contains(0)
        }
        try check(!host.isEmpty, "broker", "needs a host")
        try check((1...65535).contains(port), "broker", "port must be between 1 and 65535")
        try check(!instance.isEmpty && !instance.contains("/") && !instance.contains("+") && !instance.contains("#"),
                  "instance", "must be a non-empty name without '/', '+' or '#'")
        try check(validPrefix(prefix), "prefix", "must be a topic prefix without '+', '#' or a trailing '/'")
        for o in effectiveOutputs {
            try check(validPrefix(o.prefix), "outputs", "prefix '\(o.prefix)' must be a topic prefix without '+', '#' or a trailing '/'")
        }
        try check(Set(effectiveOutputs.map(\.prefix)).count == effectiveOutputs.count, "outputs", "names a prefix twice")
        try check(outputQoS == 0 || outputQoS == 1, "outputQos", "must be 0 or 1")
        try check(sessionExpiry >= 0 && sessionExpiry <= Int(UInt32.max), "sessionExpiry", "must be between 0 and 4294967295 seconds")
        try check(maxMessageBytes >= 256 && maxMessageBytes <= 256 << 20, "maxMessageBytes", "must be between 256 and 268435456 bytes")
        try check(maxQueuedMessages >= 1 && maxQueuedMessages <= 10_000_000, "maxQueuedMessages", "must be between 1 and 10000000")
        try check(maxInboxBytes >= maxMessageBytes && maxInboxBytes <= 4 << 30, "maxInboxBytes",
                  "must be at least maxMessageBytes and at most 4294967296 bytes")
        try check(reconnectMaxDelay >= 0.25 && reconnectMaxDelay <= 3600, "reconnectMaxDelay", "must be between 0.25 and 3600 seconds")
        try check(keepAlive >= 5 && keepAlive <= 65535, "keepAlive", "must be between 5 and 65535 seconds")
        if let c = clientID { try check(!c.isEmpty && c.utf8.count <= 64, "clientId", "must have 1 to 64 bytes") }
    }
}
