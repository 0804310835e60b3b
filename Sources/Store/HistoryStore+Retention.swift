public import Positioning

/// How long history is kept: at full rate, then thinned to one position per tag per second, then deleted.
public struct RetentionPolicy: Sendable, Equatable {
    /// Positions younger than this keep every row, and recorded raw lines are kept this long, nanoseconds.
    public var fullRate: Nanoseconds
    /// Positions and zone events older than this are deleted, nanoseconds (at least `fullRate`).
    public var keep: Nanoseconds

    /// - Parameters:
    ///   - fullRate: age below which positions keep their full rate, and raw lines are kept, ns.
    ///   - keep: age beyond which positions and zone events are deleted, ns.
    public init(fullRate: Nanoseconds, keep: Nanoseconds) {
        self.fullRate = fullRate; self.keep = max(keep, fullRate)
    }
}

/// What one retention run removed.
public struct RetentionResult: Sendable, Equatable {
    /// Positions deleted for being older than `keep`.
    public var positionsDeleted = 0
    /// Positions deleted by thinning to one per tag per second.
    public var positionsThinned = 0
    /// Recorded raw lines deleted for being older than `fullRate`.
    public var measurementsDeleted = 0
    /// Zone events deleted for being older than `keep`.
    public var zoneEventsDeleted = 0
    /// Transactions committed.
    public var batches = 0
    /// Nothing removed yet.
    public init() {}
}

extension HistoryStore {
    /// Applies a retention policy incrementally: every transaction deletes at most `batchSize` rows,
    /// so that a service writing to the same database waits at most one short batch for the lock.
    ///
    /// Positions older than `now - keep` are deleted; positions between `now - keep` and
    /// `now - fullRate` are thinned to the first one of each tag in each whole second (Unix time), so
    /// a second run removes nothing more; recorded raw lines older than `now - fullRate` and zone
    /// events older than `now - keep` are deleted. Each tag's last position is kept. Freed pages are
    /// reused by later inserts, so a database under a policy stops growing (the file does not shrink).
    ///
    /// A caller that runs this repeatedly (the live service) passes the previous run's thinning end
    /// as `thinnedBefore`, so that each run thins only what has aged since, instead of re-reading the
    /// whole thinned range.
    /// - Parameters:
    ///   - policy: the ages.
    ///   - now: the current time, Unix nanoseconds (passed in, so that tests and replays are exact).
    ///   - batchSize: rows per transaction; at least 1.
    ///   - thinnedBefore: positions before this time (Unix nanoseconds) are already thinned; thinning
    ///     starts at the beginning of its second. nil: thin the whole range.
    ///   - isCancelled: checked between tags; when it returns true the run stops early (what was
    ///     committed stays, and a later run finishes the work).
    public func applyRetention(_ policy: RetentionPolicy, now: Nanoseconds, batchSize: Int = 10_000,
                               thinnedBefore: Nanoseconds? = nil,
                               isCancelled: () -> Bool = { false }) throws -> RetentionResult {
        let limit = Int64(max(1, batchSize))
        let deleteBefore = now.saturatingSubtract(policy.keep), thinBefore = now.saturatingSubtract(policy.fullRate)
        // The second that holds `thinnedBefore` may have one row kept before it: start at its beginning.
        let thinFrom = thinnedBefore.map { max(deleteBefore, Self.secondStart($0)) } ?? deleteBefore
        var result = RetentionResult()
        try withDatabase { try $0.execute(sql: "PRAGMA busy_timeout = 5000") }
        let tagIDs = try withDatabase { database in
            var ids: [Int64] = []
            try database.cachedStatement(sql: "SELECT id FROM tags ORDER BY id").forEachRow { ids.append($0.int64(at: 0)) }
            return ids
        }
        for tagID in tagIDs {
            if isCancelled() { return result }
            while true {  // old positions, by primary key range
                let n = try deleteBatch("""
                    DELETE FROM positions WHERE tag_id = ?1 AND t_ns IN (
                        SELECT t_ns FROM positions WHERE tag_id = ?1 AND t_ns < ?2 ORDER BY t_ns LIMIT ?3)
                    """, tagID, deleteBefore, limit)
                result.positionsDeleted += n
                if n > 0 { result.batches += 1 }
                if n < limit { break }
            }
            try thin(tagID: tagID, from: thinFrom, to: thinBefore, limit: limit, result: &result)
        }
        for (sql, cutoff, isZone) in [
            ("DELETE FROM measurements WHERE rowid IN (SELECT rowid FROM measurements WHERE t_ns < ?1 LIMIT ?2)", thinBefore, false),
            ("DELETE FROM zone_events WHERE rowid IN (SELECT rowid FROM zone_events WHERE t_ns < ?1 LIMIT ?2)", deleteBefore, true),
        ] {
            while true {
                let n = try deleteBatch(sql, cutoff, limit)
                if isZone { result.zoneEventsDeleted += n } else { result.measurementsDeleted += n }
                if n > 0 { result.batches += 1 }
                if n < limit { break }
            }
        }
        return result
    }

    /// Thins one tag's positions in `[from, to)` to the first of each second, `limit` rows read per transaction.
    private func thin(tagID: Int64, from: Nanoseconds, to: Nanoseconds, limit: Int64, result: inout RetentionResult) throws {
        var cursor = from
        var lastSecond: Int64? = nil
        while cursor < to {
            let (read, deleted, next, second) = try withDatabase { database in
                try database.transaction {
                    let select = try database.cachedStatement(sql: """
                        SELECT t_ns FROM positions WHERE tag_id = ?1 AND t_ns >= ?2 AND t_ns < ?3 ORDER BY t_ns LIMIT ?4
                        """)
                    try select.bind(tagID, at: 1)
                    try select.bind(cursor, at: 2)
                    try select.bind(to, at: 3)
                    try select.bind(limit, at: 4)
                    var times: [Int64] = []
                    try select.forEachRow { times.append($0.int64(at: 0)) }
                    let delete = try database.cachedStatement(sql: "DELETE FROM positions WHERE tag_id = ?1 AND t_ns = ?2")
                    var previous = lastSecond, deleted = 0
                    for t in times {
                        let second = Self.secondStart(t)
                        if second == previous {
                            try delete.bind(tagID, at: 1)
                            try delete.bind(t, at: 2)
                            try delete.execute()
                            deleted += 1
                        }
                        previous = second
                    }
                    return (times.count, deleted, (times.last ?? to - 1) + 1, previous)
                }
            }
            result.positionsThinned += deleted
            if deleted > 0 { result.batches += 1 }
            lastSecond = second
            cursor = next
            if read < limit { break }
        }
    }

    /// The start of the whole (Unix) second holding `t`, nanoseconds (rounding down, also before 1970).
    static func secondStart(_ t: Nanoseconds) -> Nanoseconds {
        let second: Int64 = 1_000_000_000
        return (t >= 0 ? t / second : (t + 1) / second - 1) * second
    }

    /// Runs one bounded DELETE in its own transaction. - Returns: rows deleted.
    private func deleteBatch(_ sql: String, _ values: Int64...) throws -> Int {
        try withDatabase { database in
            try database.transaction {
                let statement = try database.cachedStatement(sql: sql)
                for (i, v) in values.enumerated() { try statement.bind(v, at: i + 1) }
                try statement.execute()
                return database.changes
            }
        }
    }
}
