public import Positioning

extension HistoryStore {
    /// Calls `body` with the recorded ingest lines with `from <= time < to`, in time then recording
    /// order, in pages of at most `pageSize` lines. Lines sharing a time may straddle pages: the
    /// pages continue after the last (time, rowid) read.
    /// - Parameters:
    ///   - site: only this site's lines; nil for every site.
    ///   - from: inclusive start, Unix nanoseconds; nil for the beginning.
    ///   - to: exclusive end, Unix nanoseconds; nil for no end.
    ///   - pageSize: lines per page; at least 1.
    ///   - body: receives each non-empty page.
    public func forEachMeasurementPage(site: String? = nil, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                                       pageSize: Int = 50_000, _ body: ([RecordedMeasurement]) throws -> Void) throws {
        var after: (time: Int64, rowid: Int64) = (from ?? .min, .min)
        let limit = max(1, pageSize)
        while true {
            var rowids: [Int64] = []
            let page = try withDatabase { database in
                let statement = try database.cachedStatement(sql: """
                    SELECT site, t_ns, line, rowid FROM measurements
                    WHERE (t_ns, rowid) > (?2, ?3) AND t_ns < ?4 AND (?1 IS NULL OR site = ?1)
                    ORDER BY t_ns, rowid LIMIT ?5
                    """)
                if let site { try statement.bind(site, at: 1) } else { try statement.bindNull(at: 1) }
                try statement.bind(after.time, at: 2)
                try statement.bind(after.rowid, at: 3)
                try statement.bind(to ?? .max, at: 4)
                try statement.bind(Int64(limit), at: 5)
                var lines: [RecordedMeasurement] = []
                try statement.forEachRow { row in
                    lines.append(RecordedMeasurement(site: row.string(at: 0) ?? "", time: row.int64(at: 1),
                                                     line: row.blob(at: 2) ?? []))
                    rowids.append(row.int64(at: 3))
                }
                return lines
            }
            if !page.isEmpty { try body(page) }
            guard page.count == limit, let last = page.last, let rowid = rowids.last else { return }
            after = (last.time, rowid)
        }
    }
}
