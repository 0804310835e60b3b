/// The history sink's health in the log: the service keeps running when storage fails, so the log
/// is where an operator learns that history is not being written (besides `#stats history_error`).
struct HistoryHealth {
    /// The sink's counters when last logged.
    private var logged = HistorySinkStats()

    /// Compares the sink's counters with those of the last call (once a second, from the loop's
    /// timer) and logs what changed: a storage error appearing or changing, rows dropped, and the
    /// recovery when a batch commits again.
    mutating func log(_ now: HistorySinkStats, _ logger: Logger) {
        let before = logged
        logged = now
        if let error = now.lastError, error != before.lastError {
            logger.error("history write failed; the rows are kept and retried",
                         ["error": error, "pending": now.pending, "written": now.rowsWritten])
        } else if now.lastError == nil, before.lastError != nil {
            logger.info("history writing resumed", ["written": now.rowsWritten, "pending": now.pending])
        } else if now.lastError == nil, now.failures > before.failures {
            // Failed and recovered between two checks (a server restart shorter than a second).
            logger.error("history write failed; the rows were kept and written on retry",
                         ["error": now.lastFailure ?? "unknown", "failures": now.failures - before.failures,
                          "written": now.rowsWritten])
        }
        if now.dropped > before.dropped {
            logger.warning("history rows dropped", ["dropped": now.dropped - before.dropped, "total": now.dropped])
        }
    }

    /// After the last commit at shutdown: rows dropped since the last health check (the storage still
    /// failing, a full disk) are an error, with their count, and so are rows still pending.
    mutating func logAtShutdown(_ stats: HistorySinkStats, _ logger: Logger) {
        let dropped = stats.dropped - logged.dropped
        guard dropped > 0 || stats.pending > 0 else { return }
        logger.error("history rows lost at shutdown: they could not be written",
                     ["dropped": dropped, "pending": stats.pending, "total_dropped": stats.dropped,
                      "error": stats.lastError ?? "none"])
        logged = stats
    }
}
