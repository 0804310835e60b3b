import Positioning

/// `rate=N` channels: lines held back by their `FeedConflator` and released as their slots open.
extension FeedHub {
    /// Holds `output` back for a conflating channel when its key sent one less than `1/N` s ago.
    /// - Returns: true when held.
    func conflate(_ ch: FeedChannel, _ output: Output, kind: Subscription.Kind) -> Bool {
        guard let c = ch.conflator else { return false }
        let wasHolding = c.nextDue != .max
        guard c.hold(output, now: ServiceClock.monotonicNow()) else { return false }
        if !wasHolding { heldChannels.append(ch) }
        return true
    }

    /// Queues the held lines whose slot opened by `now` (monotonic ns). Call once a loop turn.
    func releaseConflated(now: Int64) {
        guard !heldChannels.isEmpty else { return }
        var still: [FeedChannel] = []
        var line: [UInt8] = []
        for ch in heldChannels where !ch.subscribers.isEmpty {
            guard let c = ch.conflator else { continue }
            for output in c.release(now: now) {
                line.removeAll(keepingCapacity: true)
                guard ch.subscription.format.append(output, to: &line) else { continue }
                line.withUnsafeBytes { ch.append($0, policy: policy, overflowed: overflow) }
                countQueued(ch.subscribers.count)
                markDirty(ch)
            }
            if c.nextDue != .max { still.append(ch) }
        }
        heldChannels = still
    }

    /// The earliest time (monotonic ns) a held line may go, or nil when none is held.
    var nextConflationDue: Int64? {
        heldChannels.lazy.compactMap { $0.conflator?.nextDue }.min().flatMap { $0 == .max ? nil : $0 }
    }
}
