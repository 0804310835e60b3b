public import Positioning

/// What the service and the commands need of a history database, implemented by `HistoryStore`
/// (SQLite, the embedded default) and `PostgresHistoryStore`: the sites, the queries, retention, and
/// a batching writer. Each implementation serialises its own calls, which block on storage: call
/// them from a thread that may block, never the cooperative pool.
public protocol HistoryStorage: AnyObject, Sendable {
    /// Where the data is, for logs and messages: a file path or a URL without its password.
    var location: String { get }
    /// Inserts a site map, or replaces the stored one with the same id; `json` is stored exactly.
    func saveSite(_ site: Site, json: [UInt8]) throws
    /// Every stored site, parsed, sorted by id.
    func loadSites() throws -> [Site]
    /// The stored JSON of one site, or nil.
    func siteJSON(id: String) throws -> [UInt8]?
    /// Deletes a site map (its history stays). - Returns: true if one was deleted.
    @discardableResult func removeSite(id: String) throws -> Bool
    /// The last known position of every tag (`site` nil) or of one site's tags, ordered by site then tag.
    func lastPositions(site: String?) throws -> [PositionEstimate]
    /// One tag's positions with `from <= time < to` (Unix ns, nil for open), oldest first, at most `limit`.
    func positions(site: String, tag: String, from: Nanoseconds?, to: Nanoseconds?, limit: Int?) throws -> [PositionEstimate]
    /// The number of positions with `from <= time < to`, of one site (or all) and one tag (or all).
    func positionCount(site: String?, tag: String?, from: Nanoseconds?, to: Nanoseconds?) throws -> Int
    /// Every (site, tag) pair with history, of one site or all, ordered by site then tag.
    func tags(site: String?) throws -> [(site: String, tag: String)]
    /// Recorded ingest lines with `from <= time < to`, in time then recording order, at most `limit`.
    func measurements(site: String?, from: Nanoseconds?, to: Nanoseconds?, limit: Int?) throws -> [RecordedMeasurement]
    /// The number of recorded ingest lines.
    func measurementCount() throws -> Int
    /// Calls `body` with the recorded lines in `[from, to)` in pages of at most `pageSize`.
    func forEachMeasurementPage(site: String?, from: Nanoseconds?, to: Nanoseconds?, pageSize: Int,
                                _ body: ([RecordedMeasurement]) throws -> Void) throws
    /// A site's zone events with `from <= time < to`, in time then insertion order.
    func zoneEvents(site: String, from: Nanoseconds?, to: Nanoseconds?) throws -> [ZoneEventRecord]
    /// Applies a retention policy in transactions of at most `batchSize` rows (see `HistoryStore`).
    func applyRetention(_ policy: RetentionPolicy, now: Nanoseconds, batchSize: Int, thinnedBefore: Nanoseconds?,
                        isCancelled: () -> Bool) throws -> RetentionResult
    /// A writer that batches history into this database on a thread of its own.
    func makeWriter(batchSize: Int, maxDelay: Duration, maxPending: Int) -> HistoryWriter
}

extension HistoryStorage {
    /// Stores a site with its canonical JSON.
    public func saveSite(_ site: Site) throws { try saveSite(site, json: site.jsonBytes()) }
    /// The last known position of every tag of every site.
    public func lastPositions() throws -> [PositionEstimate] { try lastPositions(site: nil) }
    /// Every (site, tag) pair with history.
    public func tags() throws -> [(site: String, tag: String)] { try tags(site: nil) }
    /// A writer with the defaults of `HistoryStore.makeWriter`.
    public func makeWriter() -> HistoryWriter {
        makeWriter(batchSize: 4096, maxDelay: .milliseconds(200), maxPending: 1_000_000)
    }
    /// Retention with the defaults (10,000 rows per transaction, the whole range).
    public func applyRetention(_ policy: RetentionPolicy, now: Nanoseconds, batchSize: Int = 10_000) throws -> RetentionResult {
        try applyRetention(policy, now: now, batchSize: batchSize, thinnedBefore: nil, isCancelled: { false })
    }

    /// Calls `body` with one tag's positions in `[from, to)`, oldest first, in pages of at most
    /// `pageSize` rows, so that a long history is exported in bounded memory.
    public func forEachPositionPage(site: String, tag: String, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                                    pageSize: Int = 50_000, _ body: ([PositionEstimate]) throws -> Void) throws {
        var start = from
        while true {
            let page = try positions(site: site, tag: tag, from: start, to: to, limit: max(1, pageSize))
            if !page.isEmpty { try body(page) }
            // (tag, time) is the key: no two rows of a tag share a time, so the next page starts after it.
            guard page.count == max(1, pageSize), let last = page.last, last.time < .max else { return }
            start = last.time + 1
        }
    }
}

/// Opens the history database an operator chose: PostgreSQL for a `postgres://` or `postgresql://`
/// URL, else the SQLite file in the data directory.
public enum HistoryDatabase {
    /// True when `database` names a PostgreSQL server.
    public static func isPostgres(_ database: String?) -> Bool {
        guard let database else { return false }
        return database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }

    /// Opens (and migrates) the store: `PostgresHistoryStore(url:)` when `database` is a PostgreSQL
    /// URL, else `HistoryStore(directory:)`.
    /// - Parameters:
    ///   - database: a `postgres://…` URL, or nil for SQLite.
    ///   - directory: the data directory of the SQLite file.
    public static func open(database: String?, directory: String) throws -> any HistoryStorage {
        if let database, isPostgres(database) { return try PostgresHistoryStore(url: database) }
        return try HistoryStore(directory: directory)
    }
}
