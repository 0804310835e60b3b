import Testing
import Numerics
import Positioning
@testable import Survey

/// The check's estimates for the demo warehouse map, from 8 tags × 60 s simulated on `simulated`.
private func check(simulated: Site) -> [AnchorPositionEstimate] {
    var events: [Event] = []
    Simulator(site: simulated, config: SimulationConfig(tags: 8, duration: 60, seed: 4)).generate(into: { events.append($0) })
    return AnchorPositionCheck.run(site: .demoWarehouse, events: events)
}

@Suite struct AnchorPositionCheckTests {
    /// An anchor 1 m from where the map puts it is found, and put back within 0.1 m of where it really
    /// is; the other anchors are not flagged. With a correct map no anchor is.
    @Test func aMovedAnchorIsFoundWithoutGroundTruth() throws {
        var moved = Site.demoWarehouse
        let u3 = try #require(moved.anchorIndex["U3"])
        moved.anchors[u3].position.x += 1
        let results = check(simulated: moved)
        let r = results[u3]
        let estimate = try #require(r.estimated, "\(r.failure ?? "")")
        #expect((estimate - moved.anchors[u3].position).norm < 0.1, "\(estimate)")
        #expect(r.isMisplaced(tolerance: 0.2) && r.pairs > 500)
        for other in results where other.anchor != "U3" {
            #expect(!other.isMisplaced(tolerance: 0.2), "\(other.anchor): \(other.shift ?? -1)")
        }

        for r in check(simulated: .demoWarehouse) {
            #expect(!r.isMisplaced(tolerance: 0.2), "\(r.anchor): \(r.shift ?? -1)")
            #expect((r.shift ?? 1) < 0.1, "\(r.anchor): \(r.shift ?? -1)")
        }
    }

    /// A tag's position between two estimates is interpolated; beyond the gap there is none.
    @Test func positionsAreInterpolatedWithinTheGap() {
        func estimate(_ t: Nanoseconds, _ x: Double) -> PositionEstimate {
            PositionEstimate(site: "s", tag: "T", position: Vec3(x, 0, 0), velocity: .zero, covXX: 0.01, covXY: 0,
                             covYY: 0.03, covXZ: 0, covYZ: 0, covZZ: 0, anchors: 3, motion: .moving, time: t)
        }
        let track = [estimate(0, 0), estimate(100_000_000, 1), estimate(2_000_000_000, 5)]
        let gap = Nanoseconds(0.3e9)
        let mid = AnchorPositionCheck.position(in: track, at: 25_000_000, gap: gap)
        #expect(mid.map { abs($0.0.x - 0.25) < 1e-12 && abs($0.1 - 0.02) < 1e-12 } == true)
        #expect(AnchorPositionCheck.position(in: track, at: 1_000_000_000, gap: gap) == nil)
        #expect(AnchorPositionCheck.position(in: track, at: 2_050_000_000, gap: gap)?.0.x == 5)
    }
}
