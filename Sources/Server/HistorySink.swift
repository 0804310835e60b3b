public import Positioning

/// Where the service sends what it persists: produced positions, zone events, and raw ingest lines when recording.
/// Implemented by Store's `HistoryWriter`; a seam so the service can run without history (benchmarks
/// of the network alone) and tests can observe what it writes.
///
/// Every method must be cheap and never block on storage: the event loop calls them per output.
public protocol HistorySink: AnyObject, Sendable {
    /// Queues one position for the history.
    func append(_ estimate: PositionEstimate)
    /// Queues positions, in order, at once (the event loop's positions of one turn).
    func append(contentsOf estimates: [PositionEstimate])
    /// Queues one raw ingest line (as received, with a timestamp) of `site` at `time` (Unix ns).
    func append(measurementLine: [UInt8], site: String, time: Int64)
    /// Queues one zone enter or exit of `tag` in `zone` of `site` at `time` (Unix ns).
    func appendZoneEvent(site: String, tag: String, zone: String, event: ZoneEvent, time: Int64)
    /// Blocks until everything appended so far is committed. - Returns: rows committed so far.
    func flush() -> Int
    /// Flushes and stops; no call may follow.
    func close()
    /// Counters of the sink.
    var sinkStats: HistorySinkStats { get }
}

extension HistorySink {
    public func append(contentsOf estimates: [PositionEstimate]) {
        for e in estimates { append(e) }
    }
}

/// Counters of a history sink, for `#stats`.
public struct HistorySinkStats: Sendable, Equatable {
    /// Rows committed.
    public var rowsWritten: Int
    /// Rows appended but not yet committed.
    public var pending: Int
    /// Rows dropped because the backlog was full.
    public var dropped: Int
    /// The last storage error, if any; nil again once a batch commits.
    public var lastError: String?
    /// Write attempts that failed (each retry counts), and the error of the last one (kept after a
    /// retry succeeds, so that a failure shorter than a health check is still reported).
    public var failures: Int
    public var lastFailure: String?

    public init(rowsWritten: Int = 0, pending: Int = 0, dropped: Int = 0, lastError: String? = nil,
                failures: Int = 0, lastFailure: String? = nil) {
        self.rowsWritten = rowsWritten; self.pending = pending; self.dropped = dropped; self.lastError = lastError
        self.failures = failures; self.lastFailure = lastFailure
    }
}
