import Foundation

/// A thread blocked in `Service.waitForStats` until its condition holds for the counters; checked on
/// the loop thread at the end of each turn.
///
/// Invariant for `@unchecked Sendable`: `condition` is called and `value` written only on the loop
/// thread, before `done` is signalled; the waiting thread reads `value` only after `done` returned.
final class StatsWatcher: @unchecked Sendable {
    let condition: @Sendable (ServiceStats) -> Bool
    let done = DispatchSemaphore(value: 0)
    var value = ServiceStats()

    init(_ condition: @escaping @Sendable (ServiceStats) -> Bool) { self.condition = condition }
}

extension ServiceLoop {
    /// Signals the watchers whose condition the counters now meet (end of a turn).
    func checkWatchers() {
        let s = stats()
        statsWatchers.removeAll { w in
            guard w.condition(s) else { return false }
            w.value = s
            w.done.signal()
            return true
        }
    }

    /// Stops checking a watcher (its waiter gave up).
    func removeWatcher(_ w: StatsWatcher) {
        statsWatchers.removeAll { $0 === w }
    }
}
