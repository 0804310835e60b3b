import Testing
import Numerics
@testable import Positioning

/// The positions above 4.6 m or below −0.3 m (0.6 m outside the simulated tags' 0.3–4 m) that the
/// engine gives for 20 tags × 30 s in the hall, with a third of the pairs' episodes blocked and 1 %
/// outliers, on `site` (the hall, with or without a height range).
private func positionsOutsideTheHeights(site: Site, seed: UInt64) -> (outside: Int, positions: Int) {
    var tracker = SiteTracker(site: site)
    let sim = SimulationConfig(tags: 20, duration: 30, seed: seed, nlosProbability: 0.3, outlierProbability: 0.01)
    var outside = 0, positions = 0
    Simulator(site: site, config: sim).generate(into: { e in
        try? tracker.handle(e) { output in
            guard case .position(let p) = output else { return }
            positions += 1
            if p.position.z > 4.6 || p.position.z < -0.3 { outside += 1 }
        }
    })
    return (outside, positions)
}

/// Bit for bit the same state and covariance.
private func same(_ a: TagFilter, _ b: TagFilter) -> Bool {
    (0..<6).allSatisfy { a.x[$0].bitPattern == b.x[$0].bitPattern }
        && (0..<36).allSatisfy { a.p[$0].bitPattern == b.p[$0].bitPattern }
}

@Suite struct HeightRangeTests {
    static var rangedHall: Site {
        var site = Site.hall
        site.tagHeightRange = 0.3...4
        return site
    }

    /// Inside the range the constraint does nothing (the filter is bit for bit the same); above it, one
    /// application pulls the height to within a few centimetres of the edge (the filter's vertical σ is
    /// 1 m against the constraint's 0.2 m), shrinks the vertical variance, and leaves x and y alone
    /// (no correlation in this filter).
    @Test func aHeightAboveTheRangeIsPulledToItsEdge() {
        let context = TrackerContext(site: Self.rangedHall, config: EngineConfig())
        let covariance = [0.04, 0, 0, 0, 0.04, 0, 0, 0, 1.0]
        var track = TagTrack(anchorCount: 16, time: 0)
        track.filter = TagFilter(position: Vec3(30, 20, 2), covariance: covariance, dimensions: 3, velocityStd: 1, time: 0)
        let inside = track.filter!
        context.holdHeight(&track)
        #expect(same(track.filter!, inside))

        track.filter = TagFilter(position: Vec3(30, 20, 6), covariance: covariance, dimensions: 3, velocityStd: 1, time: 0)
        context.holdHeight(&track)
        let f = track.filter!
        #expect(f.position.z > 4 && f.position.z < 4.1, "z = \(f.position.z)")
        #expect(f.position.x == 30 && f.position.y == 20)
        #expect(f.p[14] < 0.04, "vertical variance \(f.p[14])")

        track.filter = TagFilter(position: Vec3(30, 20, -1), covariance: covariance, dimensions: 3, velocityStd: 1, time: 0)
        context.holdHeight(&track)
        #expect(track.filter!.position.z < 0.3 && track.filter!.position.z > 0.2, "z = \(track.filter!.position.z)")
    }

    /// Without a range, or on a 2-D site, nothing changes.
    @Test func noRangeNoConstraint() {
        var flat = Site.hall
        flat.dimensions = 2
        flat.tagHeight = 1
        flat.tagHeightRange = 0.3...4
        for site in [Site.hall, flat] {
            let context = TrackerContext(site: site, config: EngineConfig())
            var track = TagTrack(anchorCount: 16, time: 0)
            track.filter = TagFilter(position: Vec3(30, 20, 6), covariance: [0.04, 0, 0, 0, 0.04, 0, 0, 0, 1.0],
                                     dimensions: 3, velocityStd: 1, time: 0)
            let before = track.filter!
            context.holdHeight(&track)
            #expect(same(track.filter!, before))
        }
    }

    /// The wrong solution that NLOS handling holds (docs/engine.md): under heavy NLOS
    /// in the hall, filters settle metres above their tags, where the ranges they no longer fit look
    /// like blocked paths (192 and 130 of about 4,900 positions above 4.6 m on seeds 2 and 4). With
    /// the site's height range, none is. The test fails without the constraint after each line (68
    /// and 62 when the range only chooses among placements).
    @Test(arguments: [2, 4] as [UInt64]) func heavyNLOSStaysWithinTheRange(seed: UInt64) {
        let free = positionsOutsideTheHeights(site: .hall, seed: seed)
        let ranged = positionsOutsideTheHeights(site: Self.rangedHall, seed: seed)
        #expect(free.outside > 20, "seed \(seed): the scenario no longer shows the problem (\(free))")
        #expect(ranged.outside == 0, "seed \(seed): \(ranged)")
        #expect(ranged.positions > 4_000)
    }
}
