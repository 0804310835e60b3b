/// When the hub's lines go out: the flush hold.
///
/// Every flush of a channel costs one send per subscriber, whatever the number of lines it carries; on
/// loopback about `sendCost` of the loop's CPU each. Lines of a burst that arrive a little apart would
/// each cost a send per subscriber; held back a little, they go in one. The hold is what the flush
/// costs, capped by `flushHold`: a channel's lines wait until the oldest is `subscribers × sendCost`
/// old, at most `flushHold` (`ServiceConfig.feedFlushHold`, 1 ms by default). So a line waits at most as
/// long as its flush takes the loop, and 200 dashboards wait up to 0.8 ms, so that a 5 ms burst of
/// positions goes out in one send to each instead of two or three. A hold shorter than `shortestHold`
/// (fewer than 13 subscribers) is not waited for: the loop does not sleep and wake for it, which would
/// cost more than the sends it saves. Within a turn the hold is checked after each read, so with a few
/// subscribers the lines go out after almost every read that made one.
/// A subscriber's own bytes (a reply, a snapshot) go at once.
extension FeedHub {
    /// The loop's CPU for one send of a few hundred bytes to a loopback socket, nanoseconds: what one
    /// more subscriber adds to a flush (`scripts/reliability load`: about 3.4 µs a send with 200
    /// dashboards, the receiver's side included).
    static let sendCost: Int64 = 4_000
    /// A hold shorter than this ends at the end of the turn, nanoseconds: a sleep and wake-up of the
    /// loop costs it about this much (`perf` on the loop thread: the timed `epoll_pwait2` sleeps of
    /// 4 µs holds took a tenth of its time with 1,000 gateways and 1 dashboard).
    static let shortestHold: Int64 = 50_000

    /// How long the waiting lines may be held, nanoseconds: `sendCost` per subscriber of the channels
    /// with lines waiting, at most `flushHold`.
    var holdNanoseconds: Int64 {
        guard flushHold > 0 else { return 0 }
        var subscribers = 0
        for ch in dirtyChannels { subscribers += ch.subscribers.count }
        return min(flushHold, Int64(subscribers) * Self.sendCost)
    }

    /// When the waiting lines must be sent (monotonic ns), or nil when nothing waits.
    var flushDeadline: Int64? {
        if !dirtySubscribers.isEmpty { return 0 }
        guard !dirtyChannels.isEmpty else { return nil }
        let hold = holdNanoseconds
        return hold < Self.shortestHold ? 0 : heldSince + hold
    }

    /// True when something waits and its hold is over at `now` (monotonic ns).
    func flushDue(now: Int64) -> Bool {
        if !dirtySubscribers.isEmpty { return true }
        return !dirtyChannels.isEmpty && now - heldSince >= holdNanoseconds
    }

    /// Calls `body` for each subscriber with something new to send that is not waiting for its
    /// transport to take more, once per subscriber: those with bytes of their own always, those of
    /// channels with lines waiting once the hold is over at `now` or shorter than `shortestHold` (the
    /// end of a turn; nil: at once, whatever the hold).
    func forEachToFlush(now: Int64? = nil, _ body: (FeedSubscriber) -> Void) {
        if !dirtySubscribers.isEmpty {
            let list = dirtySubscribers
            dirtySubscribers.removeAll(keepingCapacity: true)
            for s in list {
                s.dirty = false
                if !s.waitingForWritable { body(s) }
            }
        }
        guard !dirtyChannels.isEmpty else { return }
        if let now {
            let hold = holdNanoseconds
            if hold >= Self.shortestHold && now - heldSince < hold { return }
        }
        let list = dirtyChannels
        dirtyChannels.removeAll(keepingCapacity: true)
        for ch in list {
            ch.dirty = false
            for s in ch.subscribers where !s.waitingForWritable && s.channel === ch { body(s) }
        }
    }
}
