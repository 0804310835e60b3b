internal import Foundation
public import Positioning

/// Writes position history (and, when recording, raw ingest lines) to SQLite in batches, on a
/// dedicated thread, so that the engine never waits for SQLite.
///
/// `append` only takes a lock and appends to an array. The thread wakes when `batchSize` rows are
/// pending, when the oldest pending row has waited `maxDelay`, or on `flush`/`close`; it then swaps the
/// pending arrays out and writes all of them in one transaction. A backlog therefore makes the next
/// batch larger, which amortises each commit over more rows. If more than `maxPending` rows are waiting,
/// new rows are dropped and counted. If a batch fails with an error that may pass (disk full, I/O,
/// busy), its rows are kept (within the bound), the error is reported in `stats.lastError`, and the
/// batch is retried with the rows appended since, every `retryDelay`. Other errors drop the batch.
///
/// Threading invariant: every stored property below `condition` is read and written only while
/// `condition` is locked; `batchWriter` and `retained` belong to the writer thread alone. That is why
/// the class may be `@unchecked Sendable`. Call `close()` when done: the thread keeps the writer alive.
public final class HistoryWriter: @unchecked Sendable {
    /// Counters of a writer, read with `stats`.
    public struct Stats: Sendable, Equatable {
        /// Rows committed: positions plus recorded lines.
        public var rowsWritten: Int = 0
        /// Positions committed.
        public var positionsWritten: Int = 0
        /// Recorded ingest lines committed.
        public var measurementsWritten: Int = 0
        /// Committed batches (transactions).
        public var batches: Int = 0
        /// Rows appended and not yet committed, including those of a failed batch awaiting retry.
        public var pending: Int = 0
        /// Rows lost: appended beyond `maxPending` or after `close()`, in a batch dropped on a
        /// permanent error, or still pending when `close()` gave up.
        public var droppedRows: Int = 0
        /// Batches that failed (each retry counts).
        public var failedBatches: Int = 0
        /// The error of the last failed batch; cleared when a batch commits again.
        public var lastError: String?
        /// The error of the last failed batch, kept after a batch commits again (a failure that a
        /// retry overcame before anyone looked at `lastError` still tells its cause).
        public var lastFailure: String?
    }

    /// Pending rows that wake the thread before `maxDelay`.
    public let batchSize: Int
    /// The longest a row waits before its batch starts.
    public let maxDelay: Duration
    /// The backlog bound, in rows.
    public let maxPending: Int
    /// The pause before retrying a failed batch (unless `flush` or `close` asks sooner).
    public let retryDelay: Duration

    let condition = NSCondition()
    var queuedPositions: [PositionEstimate] = []
    var queuedLines: [PendingRow] = []
    /// Rows taken by the thread and not yet committed (the batch being written or kept for retry).
    var inFlight = 0
    /// Sequence numbers: rows accepted so far, and rows covered by a finished write attempt.
    var accepted = 0, attempted = 0
    /// The highest `accepted` value a `flush` is waiting for.
    var flushTarget = 0
    var counters = Stats()
    var isClosing = false, isFinished = false

    let batchWriter: any HistoryBatchWriting

    /// Creates a writer for the SQLite database file at `path` (already migrated) and starts its
    /// thread. Use `HistoryStore.makeWriter` rather than this.
    /// - Parameters:
    ///   - path: the database file.
    ///   - batchSize: pending rows that start a write early; at least 1.
    ///   - maxDelay: the longest a row waits before its batch starts.
    ///   - maxPending: the backlog bound, in rows; at least 1.
    ///   - retryDelay: the pause before retrying a failed batch.
    ///   - beforeBatch: a test seam, run on the writer's connection before each batch.
    convenience init(path: String, batchSize: Int, maxDelay: Duration, maxPending: Int,
                     retryDelay: Duration = .seconds(1), beforeBatch: (@Sendable (Database) throws -> Void)? = nil) {
        self.init(batchWriter: HistoryBatchWriter(path: path, beforeBatch: beforeBatch), batchSize: batchSize,
                  maxDelay: maxDelay, maxPending: maxPending, retryDelay: retryDelay)
    }

    /// Creates a writer that hands its batches to `batchWriter` and starts its thread.
    /// - Parameters:
    ///   - batchWriter: the database side; from now on used only by the writer's thread.
    ///   - batchSize: pending rows that start a write early; at least 1.
    ///   - maxDelay: the longest a row waits before its batch starts.
    ///   - maxPending: the backlog bound, in rows; at least 1.
    ///   - retryDelay: the pause before retrying a failed batch.
    init(batchWriter: any HistoryBatchWriting, batchSize: Int, maxDelay: Duration, maxPending: Int,
         retryDelay: Duration = .seconds(1)) {
        self.batchSize = max(1, batchSize)
        self.maxDelay = maxDelay
        self.maxPending = max(1, maxPending)
        self.retryDelay = retryDelay
        self.batchWriter = batchWriter
        queuedPositions.reserveCapacity(self.batchSize)
        let thread = Thread { [self] in run() }
        thread.name = "sextant.history"
        thread.start()
    }

    /// Queues one position for the history and the tag's last position. Never blocks on SQLite.
    /// - Parameter estimate: the position; dropped (and counted) beyond the backlog bound or after `close()`.
    public func append(_ estimate: PositionEstimate) {
        condition.lock()
        defer { condition.unlock() }
        guard admitOne() else { return }
        queuedPositions.append(estimate)
        wakeIfNeeded(queued: queuedPositions.count + queuedLines.count)
    }

    /// Queues positions under one lock (the service hands over a loop turn's positions at once, so that
    /// its thread takes this lock once a turn, not once a position). Never blocks on SQLite.
    /// - Parameter estimates: in order; those beyond the backlog bound are dropped and counted.
    public func append(contentsOf estimates: [PositionEstimate]) {
        guard !estimates.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        let before = queuedPositions.count + queuedLines.count
        for e in estimates where admitOne() { queuedPositions.append(e) }
        let after = queuedPositions.count + queuedLines.count
        if (before == 0 && after > 0) || (before < batchSize && after >= batchSize) { condition.signal() }
    }

    /// Queues one raw ingest line for recording. Never blocks on SQLite.
    /// - Parameters:
    ///   - measurementLine: the line's bytes, without its newline.
    ///   - site: the site it was received for.
    ///   - time: its timestamp (or the receive time), Unix nanoseconds.
    public func append(measurementLine: [UInt8], site: String, time: Int64) {
        admit(.measurement(site: site, time: time, line: measurementLine))
    }

    /// Queues one recorded line or zone event under the same admission as positions.
    func admit(_ row: PendingRow) {
        condition.lock()
        defer { condition.unlock() }
        guard admitOne() else { return }
        queuedLines.append(row)
        wakeIfNeeded(queued: queuedPositions.count + queuedLines.count)
    }

    /// Blocks until every row appended before the call has been part of a finished write attempt,
    /// which commits it unless SQLite failed (then `stats.lastError` says why, and the rows stay
    /// pending for a retry). Never waits on a failing disk for longer than one attempt.
    /// - Returns: `stats.rowsWritten` afterwards.
    @discardableResult
    public func flush() -> Int {
        condition.lock()
        defer { condition.unlock() }
        let target = accepted
        flushTarget = max(flushTarget, target)
        condition.broadcast()
        while attempted < target && !isFinished { condition.wait() }
        return counters.rowsWritten
    }

    /// Blocks until `stats.rowsWritten` reaches `rows`, the writer has stopped, or `timeout` has
    /// passed, without asking for an attempt (the writer retries on its own every `retryDelay`).
    /// For tests and tools that wait for a retried batch.
    /// - Returns: `stats.rowsWritten` afterwards.
    @discardableResult
    public func waitUntilWritten(_ rows: Int, timeout: Duration) -> Int {
        let (seconds, attoseconds) = timeout.components
        let deadline = Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) * 1e-18)
        condition.lock()
        defer { condition.unlock() }
        while counters.rowsWritten < rows && !isFinished && condition.wait(until: deadline) {}
        return counters.rowsWritten
    }

    /// Writes what is pending (one last attempt), stops the thread and closes the writer's connection.
    /// Later appends are dropped and counted; calling `close()` again does nothing.
    public func close() {
        condition.lock()
        defer { condition.unlock() }
        isClosing = true
        condition.broadcast()
        while !isFinished { condition.wait() }
    }

    /// A snapshot of the counters.
    public var stats: Stats {
        condition.lock()
        defer { condition.unlock() }
        var stats = counters
        stats.pending = queuedPositions.count + queuedLines.count + inFlight
        return stats
    }

    /// Accepts one row into the queue if the writer is open and the backlog has room; counts a drop
    /// otherwise. Called with `condition` locked.
    private func admitOne() -> Bool {
        guard !isClosing, queuedPositions.count + queuedLines.count + inFlight < maxPending else {
            counters.droppedRows += 1
            return false
        }
        accepted += 1
        return true
    }

    /// Wakes the thread when the queue becomes non-empty (to start the `maxDelay` clock) or reaches
    /// `batchSize`. Called with `condition` locked.
    private func wakeIfNeeded(queued: Int) {
        if queued == 1 || queued == batchSize { condition.signal() }
    }
}
