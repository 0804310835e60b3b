import Testing
import Numerics
import Positioning
@testable import Server

@Suite struct FeedConflatorTests {
    func position(_ tag: String, _ t: Nanoseconds) -> Output {
        .position(PositionEstimate(site: "s", tag: tag, position: Vec3(Double(t), 0, 0), velocity: Vec3(0, 0, 0),
                                   covXX: 0.01, covXY: 0, covYY: 0.01, anchors: 4, motion: .moving, time: t))
    }

    @Test("rate=2: the first line goes, the next within 0.5 s is held and replaced, then released at its slot")
    func holdsTheLatest() {
        let c = FeedConflator(rate: 2)
        let ms: Int64 = 1_000_000
        #expect(!c.hold(position("a", 1), now: 0))
        #expect(c.hold(position("a", 2), now: 100 * ms))
        #expect(c.hold(position("a", 3), now: 200 * ms))
        #expect(!c.hold(position("b", 4), now: 200 * ms), "another tag has its own slot")
        #expect(c.release(now: 499 * ms).isEmpty)
        #expect(c.release(now: 500 * ms) == [position("a", 3)], "the latest held, at the slot")
        #expect(c.release(now: 2000 * ms).isEmpty)
        #expect(!c.hold(position("a", 5), now: 1000 * ms))
    }

    @Test("a removal drops what its tag held; zone lines are never held")
    func removalAndZones() {
        let c = FeedConflator(rate: 1)
        #expect(!c.hold(position("a", 1), now: 0))
        #expect(c.hold(position("a", 2), now: 10))
        #expect(!c.hold(.removed(site: "s", tag: "a", reason: .timeout, time: 3), now: 20))
        #expect(c.release(now: 2_000_000_000).isEmpty)
        #expect(!c.hold(.zone(site: "s", tag: "a", zone: "z", event: .enter, time: 4), now: 30))
    }
}
