import Foundation
import Wire

extension MQTTConfig {
    /// The keys of the `mqtt` object of a config file.
    public static let jsonKeys = ["broker", "protocol", "instance", "clientId", "username", "password", "caFile", "prefix",
                                  "outputs", "outputQos", "sessionExpiry", "maxMessageBytes", "maxQueuedMessages",
                                  "maxInboxBytes", "precision", "reconnectMaxDelay", "keepAlive"]

    /// Reads the `mqtt` object of a config file:
    ///
    ///     {"broker": "mqtts://broker.example:8883", "caFile": "/etc/sextant/ca.pem", "username": "sextant",
    ///      "password": "…", "prefix": "sextant", "outputs": [{"prefix": "sextant", "format": "json"},
    ///      {"prefix": "sextant-lp", "format": "lp"}], "precision": {"hall": "ms"}}
    ///
    /// - Throws: `ConfigError` naming `mqtt.<key>`.
    init(json value: Any) throws(ConfigError) {
        self.init()
        guard let o = value as? [String: Any] else { throw ConfigError(key: "mqtt", message: "must be an object") }
        for key in o.keys.sorted() where !Self.jsonKeys.contains(key) {
            throw ConfigError(key: "mqtt.\(key)", message: "is not a setting (known: \(Self.jsonKeys.joined(separator: ", ")))")
        }
        func string(_ key: String) throws(ConfigError) -> String? {
            guard let v = o[key] else { return nil }
            guard let s = v as? String else { throw ConfigError(key: "mqtt.\(key)", message: "must be a string") }
            return s
        }
        func number(_ key: String) throws(ConfigError) -> Double? {
            guard let v = o[key] else { return nil }
            guard let n = v as? NSNumber, String(cString: n.objCType) != "c" else {
                throw ConfigError(key: "mqtt.\(key)", message: "must be a number")
            }
            return n.doubleValue
        }
        func integer(_ key: String) throws(ConfigError) -> Int? {
            guard let d = try number(key) else { return nil }
            guard let i = Int(exactly: d) else { throw ConfigError(key: "mqtt.\(key)", message: "must be an integer") }
            return i
        }
        guard let broker = try string("broker") else {
            throw ConfigError(key: "mqtt.broker", message: "is required (e.g. \"mqtt://127.0.0.1:1883\")")
        }
        try apply(broker: broker, key: "mqtt.broker")
        if let v = try string("protocol") {
            guard let p = ProtocolVersion(rawValue: v) else {
                throw ConfigError(key: "mqtt.protocol", message: "must be \"5\" or \"3.1.1\", not \"\(v)\"")
            }
            protocolVersion = p
        }
        if let v = try string("instance") { instance = v }
        if let v = try string("clientId") { clientID = v }
        if let v = try string("username") { username = v }
        if let v = try string("password") { password = v }
        if let v = try string("caFile") { caFile = v }
        if let v = try string("prefix") { prefix = v }
        if let v = o["outputs"] {
            guard let list = v as? [[String: Any]] else {
                throw ConfigError(key: "mqtt.outputs", message: "must be a list of {\"prefix\", \"format\"} objects")
            }
            outputs = try list.enumerated().map { (i, item) throws(ConfigError) -> Output in
                guard let p = item["prefix"] as? String, item.keys.allSatisfy({ $0 == "prefix" || $0 == "format" }) else {
                    throw ConfigError(key: "mqtt.outputs[\(i)]", message: "must be {\"prefix\": \"…\", \"format\": \"json\" or \"lp\"}")
                }
                let f = item["format"] as? String ?? "json"
                guard let format = Format(rawValue: f) else {
                    throw ConfigError(key: "mqtt.outputs[\(i)]", message: "format must be \"json\" or \"lp\", not \"\(f)\"")
                }
                return Output(prefix: p, format: format)
            }
        }
        if let v = try integer("outputQos") { outputQoS = v }
        if let v = try integer("sessionExpiry") { sessionExpiry = v }
        if let v = try integer("maxMessageBytes") { maxMessageBytes = v }
        if let v = try integer("maxQueuedMessages") { maxQueuedMessages = v }
        if let v = try integer("maxInboxBytes") { maxInboxBytes = v }
        if let v = o["precision"] {
            guard let map = v as? [String: String] else {
                throw ConfigError(key: "mqtt.precision", message: "must map site ids to ns, us, ms or s")
            }
            for (site, unit) in map {
                guard let p = TimestampPrecision(rawValue: unit) else {
                    throw ConfigError(key: "mqtt.precision.\(site)", message: "must be \(TimestampPrecision.names), not \"\(unit)\"")
                }
                precision[site] = p
            }
        }
        if let v = try number("reconnectMaxDelay") { reconnectMaxDelay = v }
        if let v = try integer("keepAlive") { keepAlive = v }
        try validate()
    }

    /// Sets host, port and (for `mqtts://`) TLS with the system's certificate authorities unless a CA
    /// file is given.
    /// - Parameter key: names the setting in the error.
    public mutating func apply(broker: String, key: String) throws(ConfigError) {
        guard let b = Self.parseBroker(broker) else {
            throw ConfigError(key: key, message: "must be mqtt://HOST[:PORT], mqtts://HOST[:PORT] or HOST[:PORT], not '\(broker)'")
        }
        host = b.host
        port = b.port
        if b.tls, caFile == nil { caFile = Self.systemCAFile }
    }

    /// Debian's bundle of the system's certificate authorities (package `ca-certificates`).
    public static let systemCAFile = "/etc/ssl/certs/ca-certificates.crt"
}
