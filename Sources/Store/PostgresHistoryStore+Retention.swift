public import Positioning

extension PostgresHistoryStore {
    /// Applies a retention policy with the rules of `HistoryStore.applyRetention` (the same rows go),
    /// each statement deleting at most `batchSize` rows in its own transaction.
    public func applyRetention(_ policy: RetentionPolicy, now: Nanoseconds, batchSize: Int = 10_000,
                               thinnedBefore: Nanoseconds? = nil,
                               isCancelled: () -> Bool = { false }) throws -> RetentionResult {
        let limit = String(max(1, batchSize))
        let deleteBefore = now.saturatingSubtract(policy.keep), thinBefore = now.saturatingSubtract(policy.fullRate)
        let thinFrom = thinnedBefore.map { max(deleteBefore, HistoryStore.secondStart($0)) } ?? deleteBefore
        var result = RetentionResult()
        let tagIDs = try withConnection { c in
            let rows = try c.query("SELECT id FROM tags ORDER BY id")
            return (0..<rows.count).map { rows.int64($0, 0) }
        }
        // A row is thinned when an earlier row of its tag in the range falls in the same whole second.
        let thin = """
            DELETE FROM positions WHERE tag_id = $1 AND t_ns IN (
                SELECT t_ns FROM (
                    SELECT t_ns, lag(t_ns) OVER (ORDER BY t_ns) AS previous FROM positions
                    WHERE tag_id = $1 AND t_ns >= $2 AND t_ns < $3) r
                WHERE previous IS NOT NULL
                  AND r.t_ns - mod(mod(r.t_ns, 1000000000) + 1000000000, 1000000000)
                    = previous - mod(mod(previous, 1000000000) + 1000000000, 1000000000)
                ORDER BY t_ns LIMIT $4)
            """
        for tagID in tagIDs {
            if isCancelled() { return result }
            let id = String(tagID)
            result.positionsDeleted += try deleteInBatches("""
                DELETE FROM positions WHERE tag_id = $1 AND t_ns IN (
                    SELECT t_ns FROM positions WHERE tag_id = $1 AND t_ns < $2 ORDER BY t_ns LIMIT $3)
                """, [id, String(deleteBefore), limit], result: &result)
            if thinFrom < thinBefore {
                result.positionsThinned += try deleteInBatches(thin, [id, String(thinFrom), String(thinBefore), limit],
                                                               result: &result)
            }
        }
        if hasCells { try pruneVisits(before: deleteBefore, limit: limit, result: &result) }
        result.measurementsDeleted += try deleteInBatches("""
            DELETE FROM measurements WHERE id IN (SELECT id FROM measurements WHERE t_ns < $1 LIMIT $2)
            """, [String(thinBefore), limit], result: &result)
        result.zoneEventsDeleted += try deleteInBatches("""
            DELETE FROM zone_events WHERE id IN (SELECT id FROM zone_events WHERE t_ns < $1 LIMIT $2)
            """, [String(deleteBefore), limit], result: &result)
        return result
    }

    /// Deletes the grid-cell visits before `before` that no stored position needs any more. First
    /// raises `cell_visits_pruned` under the exclusive visits lock, which waits for the writers'
    /// batches in flight: a writer's later batches no longer rely on visits before it. Then each
    /// visit goes only when no row of its tag is left from its time to its bucket's end (a row written
    /// late, older than the cut, keeps the visit it came with; one statement sees both or neither).
    private func pruneVisits(before: Nanoseconds, limit: String, result: inout RetentionResult) throws {
        try withConnection { c in
            // One implicit transaction: the lock is held until the raise commits.
            try c.execute("""
                SELECT pg_advisory_xact_lock(\(PostgresSchema.visitsLock));
                UPDATE cell_visits_pruned SET before_ns = greatest(before_ns, \(before))
                """)
        }
        _ = try deleteInBatches("""
            DELETE FROM cell_visits WHERE ctid = ANY (ARRAY(
                SELECT v.ctid FROM cell_visits v WHERE v.t_ns < $1 AND NOT EXISTS (
                    SELECT 1 FROM positions p WHERE p.tag_id = v.tag_id AND p.t_ns >= v.t_ns
                        AND p.t_ns < sextant_visit_end(sextant_visit_bucket(v.t_ns)))
                LIMIT $2))
            """, [String(before), limit], result: &result)
    }

    /// Runs a bounded DELETE (its last parameter the bound) until it removes fewer rows than the
    /// bound, each run its own transaction (autocommit). - Returns: rows deleted.
    private func deleteInBatches(_ sql: String, _ parameters: [String], result: inout RetentionResult) throws -> Int {
        let limit = Int(parameters.last ?? "1") ?? 1
        var total = 0
        while true {
            let n = try withConnection { c in try c.command(sql, parameters) }
            total += n
            if n > 0 { result.batches += 1 }
            if n < limit { return total }
        }
    }
}
