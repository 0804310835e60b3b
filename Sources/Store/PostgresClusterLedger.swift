internal import Foundation

/// The cluster's shared state in PostgreSQL, on one connection of its own: which sites this instance
/// owns (session-level advisory locks, which the server frees when the connection dies), the
/// instances and their heartbeats (`cluster_instances`), and each site's saved learners
/// (`site_snapshots`).
///
/// The connection is set up so that a lost network is noticed within bounds on both sides: the
/// server probes an idle client (`tcp_keepalives_*`) and gives up on unacknowledged data
/// (`tcp_user_timeout`) after `Timing.serverDetection`; the client does the same, and every statement
/// is cut off after `Timing.statementTimeout`. The owner stops processing its sites after
/// `Timing.lease` without a successful heartbeat, which is shorter than `serverDetection`: the locks
/// are freed only after their owner has stopped.
///
/// Threading invariant: used from one thread at a time (the cluster coordinator's); that is why it
/// may be `@unchecked Sendable`. Every call blocks on the network.
public final class PostgresClusterLedger: @unchecked Sendable {
    /// The bounds derived from the takeover bound (seconds).
    public struct Timing: Sendable, Equatable {
        /// Seconds within which a site of a dead instance has a new owner.
        public var takeover: Double
        /// Seconds between two rounds of heartbeat, locks and balance (`takeover / 8`).
        public var interval: Double { takeover / 8 }
        /// Seconds without a successful heartbeat after which an owner stops processing (`0.4 × takeover`).
        public var lease: Double { takeover * 0.4 }
        /// Whole seconds the server waits on a silent client before it drops the connection and its
        /// locks: keep-alive idle 1 s, then probes 1 s apart (`keepaliveProbes`).
        public var keepaliveProbes: Int { max(1, Int((takeover * 0.5).rounded(.up))) }
        public var serverDetection: Double { 1 + Double(keepaliveProbes) }
        /// Milliseconds a statement may run.
        public var statementTimeout: Int { Int(lease * 1000) }
        public init(takeover: Double) { self.takeover = takeover }
    }

    /// One instance as the ledger knows it.
    public struct Instance: Sendable, Equatable {
        public var id: String
        /// True while its heartbeat is recent and its database connection is open.
        public var live: Bool
        /// Seconds since its last heartbeat.
        public var heartbeatAge: Double
        /// The sites it reported owning at its last heartbeat, sorted.
        public var sites: [String]
    }

    /// The key space of the sites' advisory locks (the first of two `integer` keys; the second is
    /// `hashtext(site)`). Two sites whose hashes collide share a lock, and so an owner.
    static let lockSpace = 74024
    static let schemaSQL = """
        CREATE TABLE IF NOT EXISTS cluster_instances (
            id text PRIMARY KEY, started_at timestamptz NOT NULL, heartbeat_at timestamptz NOT NULL,
            backend_pid integer NOT NULL, sites text NOT NULL DEFAULT '');
        CREATE TABLE IF NOT EXISTS site_snapshots (
            site text PRIMARY KEY, instance text NOT NULL, saved_at timestamptz NOT NULL, state text NOT NULL);
        """

    public let url: String
    public let instance: String
    public let timing: Timing
    private var connection: PostgresConnection?

    /// Nothing is connected before `connect()`.
    public init(url: String, instance: String, timing: Timing) {
        self.url = url
        self.instance = instance
        self.timing = timing
    }

    /// True while the connection is open (its locks held).
    public var isConnected: Bool { connection?.isOpen ?? false }

    /// Opens the connection with the bounds of `timing`, creates the tables when missing and records
    /// the instance. Locks held by an earlier connection are gone with it.
    public func connect() throws {
        connection = nil
        let ms = String(Int(timing.lease * 1000))
        let c = try PostgresConnection(url: url, parameters: [
            ("connect_timeout", String(max(2, Int(timing.lease.rounded(.up))))), ("keepalives", "1"),
            ("keepalives_idle", "1"), ("keepalives_interval", "1"), ("keepalives_count", String(timing.keepaliveProbes)),
            ("tcp_user_timeout", ms), ("application_name", "sextant cluster \(instance)"),
        ])
        try c.execute("""
            SET tcp_keepalives_idle = 1; SET tcp_keepalives_interval = 1;
            SET tcp_keepalives_count = \(timing.keepaliveProbes); SET tcp_user_timeout = \(Int(timing.serverDetection * 1000));
            SET statement_timeout = \(timing.statementTimeout)
            """)
        try c.execute("BEGIN")
        do {
            try c.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.schemaLock))")  // one creator at a time
            try c.execute(Self.schemaSQL)
            try c.query("""
                INSERT INTO cluster_instances (id, started_at, heartbeat_at, backend_pid, sites)
                VALUES ($1, now(), now(), pg_backend_pid(), '')
                ON CONFLICT (id) DO UPDATE SET started_at = now(), heartbeat_at = now(),
                    backend_pid = pg_backend_pid(), sites = ''
                """, [instance])
            try c.execute("COMMIT")
        } catch {
            try? c.execute("ROLLBACK")
            throw error
        }
        connection = c
    }

    /// Closes the connection: the server frees every lock it held.
    public func disconnect() { connection = nil }

    private func open() throws -> PostgresConnection {
        guard let c = connection, c.isOpen else {
            throw PostgresError(sqlState: nil, message: "the cluster connection is closed", isConnectionFailure: true)
        }
        return c
    }

    /// Records a heartbeat with the sites owned, and returns every instance known.
    public func heartbeat(owned: [String]) throws -> [Instance] {
        let c = try open()
        try c.query("UPDATE cluster_instances SET heartbeat_at = now(), sites = $2 WHERE id = $1",
                    [instance, owned.sorted().joined(separator: "\n")])
        return try Self.instances(c, window: timing.takeover)
    }

    /// Every instance recorded in the database at `url` (for `sextant status`), live or not.
    /// - Parameter window: seconds within which a heartbeat counts as live.
    public static func instances(url: String, window: Double) throws -> [Instance] {
        let c = try PostgresConnection(url: url, parameters: [("connect_timeout", "5")])
        let exists = try c.query("SELECT to_regclass('cluster_instances') IS NOT NULL")
        guard exists.count == 1, exists.bytes(0, 0) == [1] else { return [] }
        return try instances(c, window: window)
    }

    private static func instances(_ c: PostgresConnection, window: Double) throws -> [Instance] {
        let rows = try c.query("""
            SELECT id, sites, extract(epoch FROM now() - heartbeat_at)::double precision,
                (heartbeat_at > now() - make_interval(secs => $1::double precision)
                 AND backend_pid IN (SELECT pid FROM pg_stat_activity))
            FROM cluster_instances ORDER BY id
            """, [String(window)])
        return (0..<rows.count).map { r in
            Instance(id: rows.string(r, 0) ?? "", live: rows.bytes(r, 3) == [1], heartbeatAge: rows.double(r, 2),
                     sites: (rows.string(r, 1) ?? "").split(separator: "\n").map(String.init))
        }
    }

    /// Takes a site's lock if no connection holds it. - Returns: true when this instance now owns it.
    public func tryLock(site: String) throws -> Bool {
        let r = try open().query("SELECT pg_try_advisory_lock(\(Self.lockSpace), hashtext($1))", [site])
        return r.count == 1 && r.bytes(0, 0) == [1]
    }

    /// Frees a site's lock (after its ingest stopped and its state was saved).
    public func unlock(site: String) throws {
        try open().query("SELECT pg_advisory_unlock(\(Self.lockSpace), hashtext($1))", [site])
    }

    /// Stores a site's snapshot (JSON text), replacing the previous one.
    public func saveSnapshot(site: String, json: String) throws {
        try open().query("""
            INSERT INTO site_snapshots (site, instance, saved_at, state) VALUES ($1, $2, now(), $3)
            ON CONFLICT (site) DO UPDATE SET instance = excluded.instance, saved_at = excluded.saved_at, state = excluded.state
            """, [site, instance, json])
    }

    /// A site's last snapshot (JSON text) in the database at `url`, or nil when none was saved (for an
    /// instance that answers for a site another one owns; opens a connection of its own).
    public static func snapshot(url: String, site: String) throws -> String? {
        let c = try PostgresConnection(url: url, parameters: [("connect_timeout", "5")])
        let exists = try c.query("SELECT to_regclass('site_snapshots') IS NOT NULL")
        guard exists.count == 1, exists.bytes(0, 0) == [1] else { return nil }
        return try snapshot(on: c, site: site)
    }

    /// A site's last snapshot (JSON text), or nil when none was saved.
    public func loadSnapshot(site: String) throws -> String? {
        try Self.snapshot(on: open(), site: site)
    }

    /// A site's last snapshot (JSON text) read on `c`, or nil when none was saved.
    private static func snapshot(on c: PostgresConnection, site: String) throws -> String? {
        let r = try c.query("SELECT state FROM site_snapshots WHERE site = $1", [site])
        return r.count == 1 ? r.string(0, 0) : nil
    }
}
