import Foundation

/// Cluster mode (config key `cluster`, flag `--cluster NAME`): instances sharing one MQTT broker and
/// one PostgreSQL database divide the sites between them. See docs/scaling.md.
public struct ClusterConfig: Sendable, Equatable {
    /// This instance's name, unique in the cluster (listed by `sextant status --instances`).
    public var instance: String
    /// Seconds within which the sites of an instance that died (SIGKILL, lost network) have a new
    /// owner (default 4). The heartbeat runs every eighth of it, an owner without a heartbeat for 0.4 of
    /// it stops processing, and the database drops a silent connection's locks after about half of it.
    public var takeoverSeconds = 4.0
    /// Seconds between two saves of each owned site's learners (default 5; also saved on release).
    public var snapshotSeconds = 5.0

    public init(instance: String) { self.instance = instance }

    /// The keys of the `cluster` object.
    public static let jsonKeys = ["instance", "takeoverSeconds", "snapshotSeconds"]

    /// Reads `{"instance": "a", "takeoverSeconds": 4, "snapshotSeconds": 5}`.
    /// - Throws: `ConfigError` naming `cluster.<key>`.
    init(json value: Any) throws(ConfigError) {
        guard let o = value as? [String: Any] else { throw ConfigError(key: "cluster", message: "must be an object") }
        for key in o.keys.sorted() where !Self.jsonKeys.contains(key) {
            throw ConfigError(key: "cluster.\(key)", message: "is not a setting (known: \(Self.jsonKeys.joined(separator: ", ")))")
        }
        guard let name = o["instance"] as? String else {
            throw ConfigError(key: "cluster.instance", message: "is required: a name unique in the cluster")
        }
        self.init(instance: name)
        func number(_ key: String) throws(ConfigError) -> Double? {
            guard let v = o[key] else { return nil }
            guard let n = v as? NSNumber, String(cString: n.objCType) != "c" else {
                throw ConfigError(key: "cluster.\(key)", message: "must be a number")
            }
            return n.doubleValue
        }
        if let v = try number("takeoverSeconds") { takeoverSeconds = v }
        if let v = try number("snapshotSeconds") { snapshotSeconds = v }
    }

    /// Checks the ranges; the message names the key.
    func validate() throws(ConfigError) {
        guard !instance.isEmpty, instance.utf8.count <= 64, !instance.utf8.contains(where: { $0 < 0x20 }) else {
            throw ConfigError(key: "cluster.instance", message: "must be a name of 1 to 64 bytes without control characters")
        }
        guard takeoverSeconds >= 1, takeoverSeconds <= 600 else {
            throw ConfigError(key: "cluster.takeoverSeconds", message: "must be between 1 and 600 seconds")
        }
        guard snapshotSeconds >= 0.5, snapshotSeconds <= 3600 else {
            throw ConfigError(key: "cluster.snapshotSeconds", message: "must be between 0.5 and 3600 seconds")
        }
    }
}
