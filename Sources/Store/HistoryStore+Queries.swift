public import Positioning

/// One recorded raw ingest line.
public struct RecordedMeasurement: Sendable, Equatable {
    /// The site the line was received for.
    public var site: String
    /// The time given when it was recorded, Unix nanoseconds.
    public var time: Nanoseconds
    /// The line's bytes, without its newline.
    public var line: [UInt8]

    /// A recorded line. - Parameters: `site`; `time`, Unix nanoseconds; `line`, the bytes.
    public init(site: String, time: Nanoseconds, line: [UInt8]) {
        self.site = site; self.time = time; self.line = line
    }
}

extension HistoryStore {
    /// The last known position of every tag, of every site, ordered by site then tag.
    ///
    /// Reads the `last_positions` table (one row per tag), not the history.
    public func lastPositions() throws -> [PositionEstimate] {
        try lastPositions(siteFilter: nil)
    }

    /// The last known position of every tag of one site, ordered by tag.
    /// - Parameter site: the site id.
    public func lastPositions(site: String) throws -> [PositionEstimate] {
        try lastPositions(siteFilter: site)
    }

    func lastPositions(siteFilter: String?) throws -> [PositionEstimate] {
        try withDatabase { database in
            // With a site: walk the tags' (site, tag) index in order, one primary-key lookup per tag,
            // no sort, and no site string read back per row.
            let statement = try database.cachedStatement(sql: siteFilter == nil ? """
                SELECT t.site, t.tag, \(HistorySQL.readColumns) FROM last_positions JOIN tags t ON t.id = tag_id
                ORDER BY t.site, t.tag
                """ : """
                SELECT ?1, t.tag, \(HistorySQL.readColumns) FROM tags t JOIN last_positions l ON l.tag_id = t.id
                WHERE t.site = ?1 ORDER BY t.tag
                """)
            if let siteFilter { try statement.bind(siteFilter, at: 1) }
            var estimates: [PositionEstimate] = []
            try statement.forEachRow { row in
                estimates.append(row.readPosition(site: siteFilter ?? row.string(at: 0) ?? "", tag: row.string(at: 1) ?? "",
                                                  from: 2))
            }
            return estimates
        }
    }

    /// One tag's positions with `from <= time < to`, oldest first.
    ///
    /// One range scan of the `(tag_id, t_ns)` primary key. To page, call again with `from` set to
    /// the last time returned plus one.
    /// - Parameters:
    ///   - site: the site id.
    ///   - tag: the tag id.
    ///   - from: inclusive start, Unix nanoseconds; nil for the beginning.
    ///   - to: exclusive end, Unix nanoseconds; nil for no end.
    ///   - limit: at most this many rows; nil for all.
    public func positions(site: String, tag: String, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                          limit: Int? = nil) throws -> [PositionEstimate] {
        try withDatabase { database in
            let statement = try database.cachedStatement(sql: """
                SELECT \(HistorySQL.readColumns) FROM positions
                WHERE tag_id = (SELECT id FROM tags WHERE site = ?1 AND tag = ?2) AND t_ns >= ?3 AND t_ns < ?4
                ORDER BY t_ns LIMIT ?5
                """)
            try statement.bind(site, at: 1)
            try statement.bind(tag, at: 2)
            try statement.bind(from ?? .min, at: 3)
            try statement.bind(to ?? .max, at: 4)
            try statement.bind(Int64(limit ?? -1), at: 5)  // a negative LIMIT means none
            var estimates: [PositionEstimate] = []
            try statement.forEachRow { row in estimates.append(row.readPosition(site: site, tag: tag, from: 0)) }
            return estimates
        }
    }

    /// The number of stored positions with `from <= time < to`, optionally of one site or one tag.
    ///
    /// With a tag this is one key range; otherwise it scans the history (seconds on tens of millions of rows).
    /// - Parameters:
    ///   - site: the site id; nil for every site.
    ///   - tag: the tag id (used only with `site`); nil for every tag.
    ///   - from: inclusive start, Unix nanoseconds; nil for the beginning.
    ///   - to: exclusive end, Unix nanoseconds; nil for no end.
    public func positionCount(site: String? = nil, tag: String? = nil, from: Nanoseconds? = nil,
                              to: Nanoseconds? = nil) throws -> Int {
        try withDatabase { database in
            let statement = try database.cachedStatement(sql: """
                SELECT count(*) FROM positions WHERE tag_id IN (
                    SELECT id FROM tags WHERE (?1 IS NULL OR site = ?1) AND (?2 IS NULL OR tag = ?2))
                AND t_ns >= ?3 AND t_ns < ?4
                """)
            if let site {
                try statement.bind(site, at: 1)
                if let tag { try statement.bind(tag, at: 2) }
            }
            try statement.bind(from ?? .min, at: 3)
            try statement.bind(to ?? .max, at: 4)
            defer { statement.reset() }
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    /// Every (site, tag) pair that has history, ordered by site then tag.
    /// - Parameter site: only this site's tags; nil for every site.
    public func tags(site: String? = nil) throws -> [(site: String, tag: String)] {
        try withDatabase { database in
            let statement = try database.cachedStatement(sql:
                "SELECT site, tag FROM tags WHERE ?1 IS NULL OR site = ?1 ORDER BY site, tag")
            if let site { try statement.bind(site, at: 1) }
            var pairs: [(site: String, tag: String)] = []
            try statement.forEachRow { row in pairs.append((row.string(at: 0) ?? "", row.string(at: 1) ?? "")) }
            return pairs
        }
    }

    /// Recorded ingest lines with `from <= time < to`, in time then recording order.
    /// - Parameters:
    ///   - site: only this site's lines; nil for every site.
    ///   - from: inclusive start, Unix nanoseconds; nil for the beginning.
    ///   - to: exclusive end, Unix nanoseconds; nil for no end.
    ///   - limit: at most this many lines; nil for all.
    public func measurements(site: String? = nil, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                             limit: Int? = nil) throws -> [RecordedMeasurement] {
        try withDatabase { database in
            let statement = try database.cachedStatement(sql: """
                SELECT site, t_ns, line FROM measurements
                WHERE t_ns >= ?2 AND t_ns < ?3 AND (?1 IS NULL OR site = ?1)
                ORDER BY t_ns, rowid LIMIT ?4
                """)
            if let site { try statement.bind(site, at: 1) }
            try statement.bind(from ?? .min, at: 2)
            try statement.bind(to ?? .max, at: 3)
            try statement.bind(Int64(limit ?? -1), at: 4)
            var lines: [RecordedMeasurement] = []
            try statement.forEachRow { row in
                lines.append(RecordedMeasurement(site: row.string(at: 0) ?? "", time: row.int64(at: 1),
                                                 line: row.blob(at: 2) ?? []))
            }
            return lines
        }
    }

    /// The number of recorded ingest lines.
    public func measurementCount() throws -> Int {
        try withDatabase { database in
            let statement = try database.cachedStatement(sql: "SELECT count(*) FROM measurements")
            defer { statement.reset() }
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }
}
