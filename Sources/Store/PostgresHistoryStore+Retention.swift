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
        result.measurementsDeleted += try deleteInBatches("""
            DELETE FROM measurements WHERE id IN (SELECT id FROM measurements WHERE t_ns < $1 LIMIT $2)
            """, [String(thinBefore), limit], result: &result)
        result.zoneEventsDeleted += try deleteInBatches("""
            DELETE FROM zone_events WHERE id IN (SELECT id FROM zone_events WHERE t_ns < $1 LIMIT $2)
            """, [String(deleteBefore), limit], result: &result)
        return result
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
