internal import Positioning

/// A row waiting in the writer's second queue: a recorded raw ingest line or a zone event. Both
/// share the queue, so they are batched, bounded, retried and flushed alike. (Positions, the hot
/// path, have a queue of their own of plain `PositionEstimate`s.)
enum PendingRow: Sendable {
    /// A raw ingest line of `site` received at `time` (Unix ns), without its newline.
    case measurement(site: String, time: Int64, line: [UInt8])
    /// A zone enter or exit of `tag` in `zone` of `site` at `time` (Unix ns).
    case zoneEvent(site: String, tag: String, zone: String, event: ZoneEvent, time: Int64)
}

/// Writes one batch of history rows in one transaction, on the `HistoryWriter`'s thread: the part of
/// the writer that knows the database (SQLite here, PostgreSQL in `PostgresBatchWriter`).
///
/// Threading invariant: an implementation is used only by the writer's thread, which owns it.
protocol HistoryBatchWriting: AnyObject {
    /// Writes `positions` (and their per-tag newest rows into `last_positions`) and `rows` in one
    /// transaction; on error nothing of the batch is committed.
    func write(positions: [PositionEstimate], rows: [PendingRow]) throws
    /// Whether a failed batch should be kept and retried rather than dropped.
    func isTransient(_ error: any Error) -> Bool
    /// Closes the connection (the writer thread calls this as it stops).
    func close()
}

/// A (site, tag) pair, the key of the tag dictionary.
struct SiteTag: Hashable {
    var site: String
    var tag: String
}

/// Writes batches of history rows in one transaction each, on the writer's thread.
///
/// Threading invariant: used only by the `HistoryWriter`'s thread, which owns it and its connection.
final class HistoryBatchWriter: HistoryBatchWriting {
    /// The database file.
    let path: String
    /// The connection, opened on first use (and again after a failed open).
    private var database: Database?
    /// Tag ids already in `tags`; entries added by a transaction that rolls back are removed again.
    private var tagIDs: [SiteTag: Int64] = [:]
    /// A test seam: runs on the connection before each batch (to set pragmas, or to fail on purpose).
    private let beforeBatch: (@Sendable (Database) throws -> Void)?

    /// A writer for the database at `path`; nothing is opened until the first batch.
    /// - Parameters:
    ///   - path: the database file, already migrated.
    ///   - beforeBatch: called with the connection before each batch's transaction; nil in production.
    init(path: String, beforeBatch: (@Sendable (Database) throws -> Void)? = nil) {
        self.path = path
        self.beforeBatch = beforeBatch
    }

    /// Writes `positions` (and their per-tag newest rows into `last_positions`) and `lines` in one
    /// transaction. On error nothing of the batch is committed.
    /// - Parameters:
    ///   - positions: history rows, any order; a repeated (site, tag, time) keeps the later one.
    ///   - rows: raw ingest lines and zone events to record.
    func write(positions: [PositionEstimate], rows: [PendingRow]) throws {
        let database = try open()
        try beforeBatch?(database)
        var added: [SiteTag] = []
        do {
            try database.transaction {
                try insert(positions, into: database, added: &added)
                try insert(rows, into: database)
            }
        } catch {
            for key in added { tagIDs[key] = nil }
            throw error
        }
    }

    /// Closes the connection (the writer thread calls this as it stops).
    func close() {
        database = nil
        tagIDs.removeAll()
    }

    /// Whether a failed batch should be kept and retried (the cause may go away: disk full, I/O
    /// error, a lock held too long, a file that cannot be opened yet) rather than dropped.
    /// - Parameter error: what `write` threw.
    func isTransient(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.isTransient ?? false
    }

    private func open() throws -> Database {
        if let database { return database }
        let opened = try Database(path: path)
        // A 128 MiB page cache (filled only as the file grows) keeps the hot leaf page of each live
        // tag, and the B-tree above them, in memory between batches: with 10,000 tags that measured
        // 1.3-1.5x faster than 64 MiB.
        // A checkpoint every 32,768 WAL pages (128 MiB) instead of SQLite's 1,000: with thousands of
        // live tags a batch rewrites one leaf per tag, and a tag's leaf is rewritten by several
        // batches before it is full; checkpointing after every batch copied (and fsynced) each of
        // those versions into the database file. The WAL is truncated back to 256 MiB afterwards.
        try opened.execute(sql: "PRAGMA cache_size = -131072; PRAGMA wal_autocheckpoint = 32768; "
                           + "PRAGMA journal_size_limit = 268435456;")
        database = opened
        return opened
    }

    /// Inserts the rows in (tag, time) order, `HistorySQL.rowsPerInsert` per statement step, then
    /// upserts each tag's newest row into `last_positions`.
    ///
    /// The order matters with many live tags: a batch holds a few rows of each of thousands of tags,
    /// and written in arrival order every row lands on another B-tree leaf. Sorted, a tag's rows go
    /// to the same leaf one after another.
    private func insert(_ positions: [PositionEstimate], into database: Database, added: inout [SiteTag]) throws {
        guard !positions.isEmpty else { return }
        var order: [(tagID: Int64, time: Int64, index: Int)] = []
        order.reserveCapacity(positions.count)
        for index in positions.indices {
            let estimate = positions[index]
            let tagID = try self.tagID(site: estimate.site, tag: estimate.tag, in: database, added: &added)
            order.append((tagID, estimate.time, index))
        }
        // The index breaks ties, so a repeated (tag, time) is written later and replaces the earlier row.
        order.sort { ($0.tagID, $0.time, $0.index) < ($1.tagID, $1.time, $1.index) }
        let width = HistorySQL.rowsPerInsert
        let many = try database.cachedStatement(sql: HistorySQL.insertPositions)
        var next = 0
        while order.count - next >= width {
            for k in 0..<width {
                let row = order[next + k]
                try many.bindPosition(positions[row.index], tagID: row.tagID, first: Int32(k * 17 + 1))
            }
            try many.executeBound()
            next += width
        }
        let one = try database.cachedStatement(sql: HistorySQL.insertPosition)
        for row in order[next...] {
            try one.bindPosition(positions[row.index], tagID: row.tagID)
            try one.executeBound()
        }
        // The newest row of each tag is the last of its run in the sorted order.
        let upsert = try database.cachedStatement(sql: HistorySQL.upsertLastPosition)
        for (i, row) in order.enumerated() where i == order.count - 1 || order[i + 1].tagID != row.tagID {
            try upsert.bindPosition(positions[row.index], tagID: row.tagID)
            try upsert.executeBound()
        }
    }

    private func insert(_ rows: [PendingRow], into database: Database) throws {
        guard !rows.isEmpty else { return }
        let insert = try database.cachedStatement(sql: HistorySQL.insertMeasurement)
        for row in rows {
            switch row {
            case let .measurement(site, time, line):
                try insert.bind(site, at: 1)
                try insert.bind(time, at: 2)
                try insert.bind(line, at: 3)
                try insert.step()
                insert.reset()
            case let .zoneEvent(site, tag, zone, event, time):
                try insertZoneEvent(site: site, tag: tag, zone: zone, event: event, time: time, into: database)
            }
        }
    }

    /// The dictionary id of (site, tag), adding it to `tags` (inside the open transaction) if new.
    private func tagID(site: String, tag: String, in database: Database, added: inout [SiteTag]) throws -> Int64 {
        let key = SiteTag(site: site, tag: tag)
        if let id = tagIDs[key] { return id }
        let select = try database.cachedStatement(sql: HistorySQL.selectTagID)
        try select.bind(site, at: 1)
        try select.bind(tag, at: 2)
        let id: Int64
        if try select.step() {
            id = select.int64(at: 0)
            select.reset()
        } else {
            let insert = try database.cachedStatement(sql: HistorySQL.insertTag)
            try insert.bind(site, at: 1)
            try insert.bind(tag, at: 2)
            try insert.execute()
            id = database.lastInsertRowID
            added.append(key)
        }
        tagIDs[key] = id
        return id
    }
}
