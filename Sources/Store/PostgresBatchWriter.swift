internal import Positioning

/// Writes batches of history rows to PostgreSQL in one transaction each, on the `HistoryWriter`'s
/// thread, with `COPY … FROM STDIN (FORMAT binary)`: positions straight into `positions`, each
/// tag's newest row through a staging table into `last_positions` (an upsert that keeps the newer),
/// and recorded lines and zone events into their tables. With PostGIS, each row carries its point,
/// and the rows that start a visit of a grid cell (`CellVisits`) are also copied into `cell_visits`,
/// in the same transaction.
///
/// A position repeating a stored (tag, time) makes the direct `COPY` fail on the primary key; the
/// batch is then written again through a staging table with `ON CONFLICT DO UPDATE`, so that the
/// later row replaces the earlier one, as in SQLite. A lost connection (the server restarted) fails
/// the batch with a transient error: the writer keeps its rows, and the next attempt connects again.
///
/// Threading invariant: used only by the `HistoryWriter`'s thread, which owns it and its connection.
final class PostgresBatchWriter: HistoryBatchWriting {
    /// The server.
    let url: String
    /// The connection, opened on first use and again after it was lost.
    private var connection: PostgresConnection?
    /// Tag ids already in `tags`; emptied when a batch fails (its new tags rolled back).
    private var tagIDs: [SiteTag: Int64] = [:]

    /// True when `positions.geom` is a plain column: each row carries its point, written by the client as WKB.
    let geometry: Bool
    /// True when `cell_visits` exists: each batch stores the visits its rows start.
    let cells: Bool
    /// The visits this writer has stored (touched only by its thread, like everything here).
    private var visits = CellVisits()
    private let copyPositions: String, copyStage: String, upsertPositions: String

    /// A writer for the database at `url`, already migrated; nothing is opened until the first batch.
    /// - Parameters:
    ///   - geometry: whether `positions` has PostGIS's `geom` as a plain column, which each row then fills.
    ///   - cells: whether the database has `cell_visits`, which each batch then fills.
    init(url: String, geometry: Bool = false, cells: Bool = false) {
        self.url = url
        self.geometry = geometry
        self.cells = cells
        let columns = Self.positionColumns + (geometry ? ", geom" : "")
        copyPositions = "COPY positions (\(columns)) FROM STDIN (FORMAT binary)"
        copyStage = "COPY sextant_stage (\(columns)) FROM STDIN (FORMAT binary)"
        upsertPositions = """
            INSERT INTO positions (\(columns)) SELECT \(columns) FROM sextant_stage
            ON CONFLICT (tag_id, t_ns) DO UPDATE SET \(Self.updateValues)\(geometry ? ", geom = excluded.geom" : "")
            """
    }

    static let positionColumns = "tag_id, t_ns, \(PostgresSchema.valueColumnNames)"
    static let copyMeasurements = "COPY measurements (site, t_ns, line) FROM STDIN (FORMAT binary)"
    static let copyVisits = "COPY cell_visits (cell, t_ns, tag_id) FROM STDIN (FORMAT binary)"
    /// Holds retention from raising `cell_visits_pruned` until the batch commits, then reads it: the
    /// visits from then on stay while the batch relies on them.
    static let lockVisits = "SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.visitsLock))"
    static let readPruned = "SELECT before_ns FROM cell_visits_pruned"
    static let copyZoneEvents = "COPY zone_events (site, tag, zone, event, t_ns) FROM STDIN (FORMAT binary)"
    static let updateValues = """
        t_ns = excluded.t_ns, x = excluded.x, y = excluded.y, z = excluded.z,
            vx = excluded.vx, vy = excluded.vy, vz = excluded.vz, sigma = excluded.sigma,
            cxx = excluded.cxx, cxy = excluded.cxy, cyy = excluded.cyy,
            cxz = excluded.cxz, cyz = excluded.cyz, czz = excluded.czz,
            anchors = excluded.anchors, motion = excluded.motion
        """
    /// Each tag's newest row of the batch (in `sextant_stage`) into `last_positions`, unless the stored
    /// row is newer: an `UPDATE … FROM` for the tags already there, then an insert of the others.
    /// With thousands of live tags nearly every staged row updates a stored one, and the join costs
    /// less per row than `INSERT … ON CONFLICT DO UPDATE`'s speculative insertion of each (the
    /// insert's `ON CONFLICT` still settles a tag added by a concurrent writer, or one whose stored
    /// row is newer).
    static let upsertLast = """
        WITH updated AS (
            UPDATE last_positions l SET \(stagedValues)
            FROM sextant_stage s WHERE l.tag_id = s.tag_id AND s.t_ns >= l.t_ns RETURNING l.tag_id)
        INSERT INTO last_positions (\(positionColumns)) SELECT \(positionColumns) FROM sextant_stage s
        WHERE NOT EXISTS (SELECT 1 FROM updated u WHERE u.tag_id = s.tag_id)
        ON CONFLICT (tag_id) DO UPDATE SET \(updateValues) WHERE excluded.t_ns >= last_positions.t_ns
        """
    static let stagedValues = """
        t_ns = s.t_ns, x = s.x, y = s.y, z = s.z, vx = s.vx, vy = s.vy, vz = s.vz, sigma = s.sigma,
            cxx = s.cxx, cxy = s.cxy, cyy = s.cyy, cxz = s.cxz, cyz = s.cyz, czz = s.czz,
            anchors = s.anchors, motion = s.motion
        """

    func write(positions: [PositionEstimate], rows: [PendingRow]) throws {
        do {
            try write(positions, rows, replacing: false)
        } catch let error as PostgresError where error.sqlState == .uniqueViolation {
            try write(positions, rows, replacing: true)
        }
    }

    func isTransient(_ error: any Error) -> Bool {
        (error as? PostgresError)?.isTransient ?? false
    }

    func close() {
        connection = nil
        tagIDs.removeAll()
    }

    /// One attempt in one transaction; `replacing` routes positions through the staging upsert.
    private func write(_ positions: [PositionEstimate], _ rows: [PendingRow], replacing: Bool) throws {
        let c = try open()
        do {
            try c.execute("BEGIN")
            if cells {
                try c.execute(Self.lockVisits)
                let pruned = try c.query(Self.readPruned)
                visits.begin(prunedBefore: pruned.count == 1 ? pruned.int64(0, 0) : .max)
            }
            try insert(positions, into: c, replacing: replacing)
            try insert(rows, into: c)
            try c.execute("COMMIT")
            visits.commit()
        } catch {
            tagIDs.removeAll()
            if c.isOpen { try? c.execute("ROLLBACK") } else { connection = nil }
            throw error
        }
    }

    private func open() throws -> PostgresConnection {
        if let connection, connection.isOpen { return connection }
        connection = nil
        tagIDs.removeAll()
        visits.forget()
        let opened = try PostgresConnection(url: url)
        // Each batch commits its rows; an acknowledged flush should survive a server crash, so the
        // commit waits for the WAL flush (the server's default, stated here so no setting weakens it).
        try opened.execute("""
            SET synchronous_commit = on;
            CREATE TEMP TABLE sextant_stage (
                tag_id bigint NOT NULL, t_ns bigint NOT NULL,
                x double precision, y double precision, z double precision,
                vx double precision, vy double precision, vz double precision, sigma double precision,
                cxx double precision, cxy double precision, cyy double precision,
                cxz double precision, cyz double precision, czz double precision,
                anchors integer NOT NULL, motion text NOT NULL\(geometry ? ", geom geometry(Point)" : "")) ON COMMIT DELETE ROWS;
            CREATE TEMP TABLE sextant_new_tags (site text NOT NULL, tag text NOT NULL) ON COMMIT DELETE ROWS;
            """)
        connection = opened
        return opened
    }

    /// Bytes of one position row in the COPY input with its point, at most:
    /// 2 + 12 + 12 + 13 × 12 + 8 + 14 + 25 = 229.
    static let rowBytes = 232
    /// Bytes of one visit row: 2 + 3 × 12.
    static let visitBytes = 38
    /// Rows per chunk of a streamed `COPY` (about 64 KiB): small enough that the server starts on the
    /// first rows soon, large enough that each chunk is a few large socket writes.
    static let chunkRows = 280

    /// Copies the rows in (tag, time) order and the visits they start, then upserts each tag's newest
    /// row into `last_positions`.
    private func insert(_ positions: [PositionEstimate], into c: PostgresConnection, replacing: Bool) throws {
        guard !positions.isEmpty else { return }
        var order: [(tagID: Int64, time: Int64, index: Int)] = []
        order.reserveCapacity(positions.count)
        var missing: [Int] = []   // indices in `order` of rows whose tag has no id yet
        for index in positions.indices {
            let e = positions[index]
            if let id = tagIDs[SiteTag(site: e.site, tag: e.tag)] {
                order.append((id, e.time, index))
            } else {
                missing.append(order.count)
                order.append((0, e.time, index))
            }
        }
        if !missing.isEmpty {
            try addTags(missing.map { SiteTag(site: positions[order[$0].index].site, tag: positions[order[$0].index].tag) }, in: c)
            for i in missing {
                let e = positions[order[i].index]
                guard let id = tagIDs[SiteTag(site: e.site, tag: e.tag)] else {
                    throw PostgresError(sqlState: nil, message: "tags returned no id for '\(e.site)' '\(e.tag)'", sql: Self.addNewTags)
                }
                order[i].tagID = id
            }
        }
        order.sort { ($0.tagID, $0.time, $0.index) < ($1.tagID, $1.time, $1.index) }
        // A repeated (tag, time) within the batch: the later row wins, so keep the last of each run.
        // Streamed: the server inserts a chunk's rows while the next chunk is being encoded.
        // The visits of exactly the rows written (the last of each repeated (tag, time)).
        var started = PostgresCopyBuffer(capacity: cells ? 64 * Self.visitBytes : 0), visitCount = 0
        try c.copy(replacing ? copyStage : copyPositions) { send in
            var copy = PostgresCopyBuffer(capacity: min(positions.count, Self.chunkRows) * Self.rowBytes + Self.rowBytes)
            for (i, row) in order.enumerated()
            where i == order.count - 1 || order[i + 1].tagID != row.tagID || order[i + 1].time != row.time {
                let e = positions[row.index]
                copy.position(e, tagID: row.tagID, geometry: geometry)
                if cells, let cell = PostgresSchema.cell(x: e.position.x, y: e.position.y),
                   visits.starts(tagID: row.tagID, time: row.time, cell: cell) {
                    started.visit(cell: cell, time: row.time, tagID: row.tagID)
                    visitCount += 1
                }
                if copy.count >= Self.chunkRows * Self.rowBytes { copy.send(through: send) }
            }
            send(copy.finish())
        }
        if visitCount > 0 { try c.copy(Self.copyVisits, data: started.finish()) }
        if replacing { try c.execute(upsertPositions + "; TRUNCATE sextant_stage") }
        var newest = PostgresCopyBuffer(capacity: 4096)
        for (i, row) in order.enumerated() where i == order.count - 1 || order[i + 1].tagID != row.tagID {
            newest.position(positions[row.index], tagID: row.tagID, geometry: geometry)
        }
        try c.copy(copyStage, data: newest.finish())
        try c.execute(Self.upsertLast)
    }

    private func insert(_ rows: [PendingRow], into c: PostgresConnection) throws {
        var lines = PostgresCopyBuffer(), events = PostgresCopyBuffer()
        var lineCount = 0, eventCount = 0
        for row in rows {
            switch row {
            case let .measurement(site, time, line):
                lines.beginRow(fields: 3)
                lines.text(site); lines.int64(time); lines.data(line)
                lineCount += 1
            case let .zoneEvent(site, tag, zone, event, time):
                events.beginRow(fields: 5)
                events.text(site); events.text(tag); events.text(zone); events.text(event.rawValue); events.int64(time)
                eventCount += 1
            }
        }
        if lineCount > 0 { try c.copy(Self.copyMeasurements, data: lines.finish()) }
        if eventCount > 0 { try c.copy(Self.copyZoneEvents, data: events.finish()) }
    }

    static let copyNewTags = "COPY sextant_new_tags (site, tag) FROM STDIN (FORMAT binary)"
    static let addNewTags = """
        INSERT INTO tags (site, tag) SELECT DISTINCT site, tag FROM sextant_new_tags
        ON CONFLICT (site, tag) DO UPDATE SET tag = excluded.tag RETURNING id, site, tag
        """

    /// Gives every (site, tag) of `keys` its dictionary id in `tagIDs`, adding those not in `tags`
    /// (inside the open transaction): one `COPY` and one statement for all of them, whatever their
    /// number (10,000 new tags would otherwise be 10,000 round trips).
    private func addTags(_ keys: [SiteTag], in c: PostgresConnection) throws {
        var copy = PostgresCopyBuffer(capacity: keys.count * 32)
        for k in Set(keys) {
            copy.beginRow(fields: 2)
            copy.text(k.site); copy.text(k.tag)
        }
        try c.copy(Self.copyNewTags, data: copy.finish())
        let rows = try c.query(Self.addNewTags)
        for r in 0..<rows.count {
            tagIDs[SiteTag(site: rows.string(r, 1) ?? "", tag: rows.string(r, 2) ?? "")] = rows.int64(r, 0)
        }
    }
}
