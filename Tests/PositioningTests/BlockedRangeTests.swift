import Testing
import Numerics
@testable import Positioning

/// A 6 × 5 × 3 m room with four UWB anchors in its corners at alternating heights: a 3-D site where a
/// blocked path cannot be singled out (`TrackerContext.nlosIdentifiable` is false).
private func fourAnchorRoom() -> Site {
    let positions = [Vec3(0.2, 0.2, 2.8), Vec3(5.8, 0.2, 0.4), Vec3(5.8, 4.8, 2.8), Vec3(0.2, 4.8, 0.4)]
    let anchors = positions.enumerated().map { i, p in
        Anchor(id: "R\(i + 1)", position: p, technologies: [.uwb], orientation: nil, fieldOfView: nil,
               rangeBias: 0, rangeStd: nil)
    }
    return Site(id: "room", name: "Room", dimensions: 3, tagHeight: nil,
                bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(6, 5, 3)), anchors: anchors, zones: [])
}

/// The share of 3-D errors inside the reported 95 % region (after each tag's first 2 s) and the RMSE
/// for six walking tags over 60 s.
private func run(_ site: Site, nlos: Double, seed: UInt64) -> (coverage: Double, rmse: Double) {
    var tracker = SiteTracker(site: site)
    var estimates: [EstimateSample] = [], truth: [TruthSample] = []
    let config = SimulationConfig(tags: 6, duration: 60, seed: seed, nlosProbability: nlos, outlierProbability: 0.01)
    Simulator(site: site, config: config).generate(event: { e in
        try? tracker.handle(e) { output in
            if case .position(let p) = output { estimates.append(EstimateSample(p)) }
        }
    }, truth: { truth.append($0) })
    let m = Evaluation(truth: truth, estimates: estimates, dimensions: [site.id: 3],
                       options: Evaluation.Options(warmup: 2)).site(site.id)!
    return (m.coverage95 ?? 0, m.rmse)
}

@Suite struct BlockedRangeTests {
    /// With a fifth of the pair-episodes blocked, the filter follows the blocked ranges of a four-anchor
    /// room (nothing tells which of the four is long), often to a point where all four fit. The report
    /// carries where the tag would be if one range were blocked: on seeds 1–3 the 95 % region holds
    /// 0.87, 0.87 and 0.85 of the errors; without that term 0.70, 0.73 and 0.66 (the test fails).
    @Test func aFourAnchorRoomReportsWhereABlockedRangeCouldHaveMovedIt() {
        for seed: UInt64 in [1, 2, 3] {
            let r = run(fourAnchorRoom(), nlos: 0.2, seed: seed)
            #expect(r.coverage >= 0.82 && r.coverage <= 0.99, "seed \(seed): coverage \(r.coverage)")
        }
    }

    /// On line of sight the alternatives are unlikely, and the region does not balloon: it holds 0.99
    /// and 0.98 of the errors on seeds 1 and 2 (0.96 without the term).
    @Test func onLineOfSightTheRegionStaysTight() {
        for seed: UInt64 in [1, 2] {
            let r = run(fourAnchorRoom(), nlos: 0, seed: seed)
            #expect(r.coverage >= 0.90 && r.coverage <= 0.99, "seed \(seed): coverage \(r.coverage)")
            #expect(r.rmse < 0.25, "seed \(seed): RMSE \(r.rmse) m")
        }
    }

    /// Three spheres meet in two points, mirror images through the centres' plane.
    @Test func threeSpheresMeetInTwoPoints() throws {
        let a = Vec3(0, 0, 0), b = Vec3(4, 0, 0), c = Vec3(0, 3, 1), x = Vec3(1.5, 1.2, 2.0)
        let (points, count) = TrackerContext.intersect(a, (x - a).norm, b, (x - b).norm, c, (x - c).norm)
        #expect(count == 2)
        let nearest = min((points[0] - x).norm, (points[1] - x).norm)
        #expect(nearest < 1e-9)
        for i in 0..<count {
            #expect(abs((points[i] - a).norm - (x - a).norm) < 1e-9)
            #expect(abs((points[i] - c).norm - (x - c).norm) < 1e-9)
        }
        // Centres on one line fix no point.
        #expect(TrackerContext.intersect(a, 1, b, 1, Vec3(8, 0, 0), 5).1 == 0)
    }
}
