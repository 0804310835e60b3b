public import Store

/// Store's batching writer is the service's history sink.
extension HistoryWriter: HistorySink {
    public var sinkStats: HistorySinkStats {
        let s = stats
        return HistorySinkStats(rowsWritten: s.rowsWritten, pending: s.pending, dropped: s.droppedRows,
                                lastError: s.lastError, failures: s.failedBatches, lastFailure: s.lastFailure)
    }
}
