import Foundation
public import Store
import Positioning

/// Applies a retention policy to the live service's history every `interval` seconds, on a thread
/// of its own through the store's connection (never the event loop), in transactions of at most
/// `batchSize` rows, so the history writer waits at most one short transaction for the lock.
///
/// The first pass runs at `start()`. Each later pass thins only the positions that aged past
/// `fullRate` since the previous pass. `stop()` ends the thread, cutting a pass short between tags.
///
/// Threading invariant: `stopping`, `finished`, `started` and `totals` are touched only while
/// `condition` is locked; `store` serialises its own calls. That is why the class may be
/// `@unchecked Sendable`.
public final class RetentionRunner: @unchecked Sendable {
    /// The ages applied.
    public let policy: RetentionPolicy
    /// Seconds between passes.
    public let interval: Double
    /// Rows per transaction.
    public let batchSize: Int
    private let store: HistoryStore
    private let logger: Logger
    private let condition = NSCondition()
    private var stopping = false, started = false, finished = false
    private var totals = RetentionResult()
    private var passes = 0

    /// A runner (not started) for `store`.
    /// - Parameters:
    ///   - store: the data directory's store; its connection runs the deletes.
    ///   - policy: the ages.
    ///   - interval: seconds between passes (the first runs at `start()`).
    ///   - batchSize: rows per transaction; at least 1.
    ///   - logger: a line per pass that removed something, a warning per failed pass.
    public init(store: HistoryStore, policy: RetentionPolicy, interval: Double, batchSize: Int = 10_000,
                logger: Logger) {
        self.store = store
        self.policy = policy
        self.interval = interval
        self.batchSize = max(1, batchSize)
        self.logger = logger
    }

    /// Starts the thread; calling it again does nothing.
    public func start() {
        let isFirst: Bool = condition.withLock {
            defer { started = true }
            return !started && !stopping
        }
        guard isFirst else { return }
        let thread = Thread { [self] in run() }
        thread.name = "sextant.retention"
        thread.start()
    }

    /// Stops the thread (after the transaction in progress) and waits for it. Idempotent.
    public func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        while started && !finished { condition.wait() }
    }

    /// Rows removed by every pass so far, and the number of passes.
    public var removed: (result: RetentionResult, passes: Int) {
        condition.withLock { (totals, passes) }
    }

    /// Blocks until `condition` holds for the rows removed so far (checked after each pass), or
    /// `timeout` seconds pass. - Returns: the rows removed so far.
    public func waitForRemoved(timeout: Double, until condition: (RetentionResult) -> Bool) -> RetentionResult {
        let end = Date(timeIntervalSinceNow: timeout)
        self.condition.lock()
        defer { self.condition.unlock() }
        while !condition(totals) && self.condition.wait(until: end) {}
        return totals
    }

    private func run() {
        // Like the history writer: below the event loop's priority (per thread on Linux).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        var thinnedBefore: Int64?
        condition.lock()
        while !stopping {
            condition.unlock()
            let now = ServiceClock.wallNow()
            do {
                let r = try store.applyRetention(policy, now: now, batchSize: batchSize, thinnedBefore: thinnedBefore,
                                                 isCancelled: { [self] in condition.withLock { stopping } })
                thinnedBefore = now.saturatingSubtract(policy.fullRate)
                record(r)
            } catch {
                logger.warning("retention failed", ["error": "\(error)"])
            }
            condition.lock()
            let end = Date(timeIntervalSinceNow: interval)
            while !stopping && Date() < end { _ = condition.wait(until: end) }
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func record(_ r: RetentionResult) {
        condition.withLock {
            totals.positionsDeleted += r.positionsDeleted
            totals.positionsThinned += r.positionsThinned
            totals.measurementsDeleted += r.measurementsDeleted
            totals.zoneEventsDeleted += r.zoneEventsDeleted
            totals.batches += r.batches
            passes += 1
            condition.broadcast()   // for `waitForRemoved`
        }
        guard r.batches > 0 else { return }
        logger.info("retention applied", ["positions_deleted": r.positionsDeleted, "positions_thinned": r.positionsThinned,
                                          "raw_lines_deleted": r.measurementsDeleted,
                                          "zone_events_deleted": r.zoneEventsDeleted, "transactions": r.batches])
    }
}

#if canImport(Glibc)
import Glibc
#endif
