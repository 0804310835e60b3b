import Testing
import Positioning
@testable import Server

/// The feed hub's flush hold (FeedHub+Flush.swift) on a clock the test sets: a channel's lines wait
/// `sendCost` per subscriber, at most `flushHold`; a short hold ends with the turn; a subscriber's own
/// bytes never wait.
@Suite struct FeedFlushHoldTests {
    /// The test's monotonic clock, nanoseconds.
    final class Clock: @unchecked Sendable {   // touched by the test's thread only
        var now: Int64 = 1_000_000_000
    }

    static func hub(_ clock: Clock, hold: Int64 = 1_000_000) -> FeedHub {
        FeedHub(limit: 1_000, policy: .dropOldest, rememberedTags: 0, flushHold: hold, clock: { clock.now })
    }

    /// The subscribers the end-of-turn flush at `now` hands out.
    static func flushed(_ hub: FeedHub, now: Int64?) -> [UInt64] {
        var ids: [UInt64] = []
        hub.forEachToFlush(now: now) { ids.append($0.id) }
        return ids.sorted()
    }

    /// 200 subscribers of one selection: lines wait 200 × `sendCost` (0.8 ms) from the first one, then
    /// all go; a line published during the hold does not start it again.
    @Test func manySubscribersWaitTheirSendCost() {
        let clock = Clock()
        let hub = Self.hub(clock)
        let subscribers = (1...200).map { FeedSubscriber(id: UInt64($0)) }
        for s in subscribers { hub.subscribe(s, to: Subscription(kinds: [.removed])) }
        let start = clock.now
        hub.publish(FeedHubTests.line(1))
        #expect(hub.holdNanoseconds == 200 * FeedHub.sendCost)
        #expect(hub.flushDeadline == start + 200 * FeedHub.sendCost)
        clock.now = start + 500_000
        hub.publish(FeedHubTests.line(2))
        #expect(!hub.flushDue(now: clock.now))
        #expect(Self.flushed(hub, now: clock.now).isEmpty)
        clock.now = start + 200 * FeedHub.sendCost
        #expect(hub.flushDue(now: clock.now))
        #expect(Self.flushed(hub, now: clock.now) == subscribers.map(\.id))
        #expect(hub.flushDeadline == nil)
        // Both lines wait in one send's worth of bytes.
        #expect(FeedHubTests.tagNumbers(FeedHubTests.drain(hub, subscribers[0])).numbers == [1, 2])
    }

    /// The hold is capped by `flushHold`, and `flushHold` 0 sends at once.
    @Test func holdIsCappedAndCanBeOff() {
        let clock = Clock()
        let capped = Self.hub(clock, hold: 300_000)
        let off = Self.hub(clock, hold: 0)
        for id in 1...500 {
            capped.subscribe(FeedSubscriber(id: UInt64(id)), to: .all)
            off.subscribe(FeedSubscriber(id: UInt64(id)), to: .all)
        }
        capped.publish(FeedHubTests.line(1))
        off.publish(FeedHubTests.line(1))
        #expect(capped.holdNanoseconds == 300_000)
        #expect(Self.flushed(capped, now: clock.now + 299_999).isEmpty)
        #expect(Self.flushed(capped, now: clock.now + 300_000).count == 500)
        #expect(off.holdNanoseconds == 0)
        #expect(Self.flushed(off, now: clock.now).count == 500)
    }

    /// One subscriber: its hold (`sendCost`) is shorter than `shortestHold`, so the end of the turn sends
    /// at once and the loop has no reason to sleep for it; within a turn (after a read) it is due once
    /// `sendCost` passed.
    @Test func shortHoldEndsWithTheTurn() {
        let clock = Clock()
        let hub = Self.hub(clock)
        let s = FeedSubscriber(id: 7)
        hub.subscribe(s, to: .all)
        hub.publish(FeedHubTests.line(1))
        #expect(hub.holdNanoseconds == FeedHub.sendCost)
        #expect(hub.flushDeadline == 0)
        #expect(!hub.flushDue(now: clock.now + FeedHub.sendCost - 1))
        #expect(hub.flushDue(now: clock.now + FeedHub.sendCost))
        #expect(Self.flushed(hub, now: clock.now) == [7])
    }

    /// A reply goes at the end of the turn while the channel's lines of the same hub still wait.
    @Test func ownBytesDoNotWait() {
        let clock = Clock()
        let hub = Self.hub(clock)
        let asker = FeedSubscriber(id: 1)
        hub.subscribe(asker, to: Subscription(kinds: [.removed]))
        let others = (2...100).map { FeedSubscriber(id: UInt64($0)) }
        for s in others { hub.subscribe(s, to: .all) }
        hub.publish(FeedHubTests.line(1))
        #expect(hub.reply(asker, "# end\n"))
        #expect(hub.flushDeadline == 0)
        #expect(hub.flushDue(now: clock.now))
        #expect(Self.flushed(hub, now: clock.now) == [1])
        #expect(hub.flushDeadline == clock.now + 100 * FeedHub.sendCost)
    }
}
