import Testing
import Numerics
@testable import Positioning

/// Direction-only anchors (`aoa`): the site contract, placement from bearings alone, and the learned
/// per-anchor angle offsets.
@Suite struct AngleOfArrivalTests {
    /// A 12 × 6 m 2-D room with `aoa` locators at 2.7 m in the given corners, facing its middle.
    static func room(corners: [Vec3] = [Vec3(0.2, 0.2, 2.7), Vec3(11.8, 0.2, 2.7), Vec3(11.8, 5.8, 2.7),
                                        Vec3(0.2, 5.8, 2.7)]) -> Site {
        let anchors = corners.enumerated().map { i, p in
            let d = Vec3(6, 3, 1.2) - p
            return Anchor(id: "L\(i + 1)", position: p, technologies: [.aoa],
                          orientation: Orientation(yaw: atan2(d.y, d.x), pitch: atan2(-d.z, d.horizontalNorm), roll: 0))
        }
        return Site(id: "aoa", name: "aoa", dimensions: 2, tagHeight: 1.2,
                    bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(12, 6, 3)), anchors: anchors, zones: [])
    }

    /// The anchor-frame azimuth and elevation of `p` seen from anchor `a`.
    static func bearing(_ site: Site, _ a: Int, _ p: Vec3) -> (az: Double, el: Double) {
        let v = site.anchors[a].orientation!.toAnchor(p - site.anchors[a].position)
        return (atan2(v.y, v.x), atan2(v.z, v.horizontalNorm))
    }

    @Test func anAoASiteParsesWithItsDefaultAngleStd() throws {
        let text = #"{"id": "t", "dimensions": 2, "tagHeight": 1.2, "bounds": {"min": [0, 0, 0], "max": [10, 10, 4]}, "anchors": [{"id": "L1", "position": [0, 0, 2.7], "technologies": ["aoa"], "orientation": {"yaw": 45, "pitch": 10, "roll": 0}}], "zones": []}"#
        let site = try Site(json: Array(text.utf8), source: "aoa.json")
        #expect(site.anchors[0].technologies == [.aoa])
        // 5°, to 0.02°.
        #expect(abs(Technology.aoa.defaultAngleStd - 5 * Double.pi / 180) < 0.02 * Double.pi / 180)
        #expect(abs(site.anchors[0].orientation!.yaw - Double.pi / 4) < 1e-12)
    }

    @Test func anAoAAnchorWithoutOrientationIsRefused() throws {
        let text = #"{"id": "t", "dimensions": 2, "tagHeight": 1.2, "bounds": {"min": [0, 0, 0], "max": [10, 10, 4]}, "anchors": [{"id": "L1", "position": [0, 0, 2.7], "technologies": ["aoa"]}], "zones": []}"#
        #expect(throws: SiteError.self) { _ = try Site(json: Array(text.utf8), source: "aoa.json") }
        do { _ = try Site(json: Array(text.utf8), source: "aoa.json") } catch {
            #expect("\(error)" == "aoa.json: anchor 'L1': field 'orientation' is missing", "\(error)")
        }
    }

    @Test func twoAoAAnchorsPlaceATagFromBearingsAlone() throws {
        let site = Self.room(corners: [Vec3(0.2, 0.2, 2.7), Vec3(11.8, 0.2, 2.7)])
        var engine = Engine(sites: [site])
        let truth = Vec3(4, 3.5, 1.2)
        var last: PositionEstimate?
        let ms: Nanoseconds = 1_000_000
        for k in 0..<40 {
            let a = k % 2, b = Self.bearing(site, a, truth)
            // An `aoa` line's distance, if any, is not used: this one is wildly wrong.
            let r = Ranging(site: site.id, anchor: site.anchors[a].id, tag: "t", distance: 50,
                            direction: .angles(azimuth: b.az, elevation: b.el), time: Nanoseconds(k) * 50 * ms)
            try engine.handle(.ranging(r)) { if case .position(let p) = $0 { last = p } }
        }
        let p = try #require(last)
        // Noise-free bearings: within 5 cm.
        #expect((p.position - truth).horizontalNorm < 0.05)
    }

    @Test func anAoALinesDistanceIsNotReported() throws {
        let site = Self.room()
        var engine = Engine(sites: [site])
        var outputs: [Output] = []
        // One azimuth cannot place the tag; the line's distance gives no proximity line.
        let r = Ranging(site: site.id, anchor: "L1", tag: "t", distance: 3, direction: .angles(azimuth: 0.1, elevation: nil),
                        time: 1_000_000_000)
        try engine.handle(.ranging(r)) { outputs.append($0) }
        #expect(outputs.isEmpty, "\(outputs)")
    }

    @Test func threeAoAAnchorsPlaceATagIn3D() throws {
        var site = Self.room(corners: [Vec3(0.2, 0.2, 2.7), Vec3(11.8, 0.2, 2.7), Vec3(11.8, 5.8, 2.7)])
        site.dimensions = 3
        site.tagHeight = nil
        var engine = Engine(sites: [site])
        let truth = Vec3(7, 2.5, 0.9)
        var last: PositionEstimate?
        let ms: Nanoseconds = 1_000_000
        for k in 0..<60 {
            let a = k % 3, b = Self.bearing(site, a, truth)
            let r = Ranging(site: site.id, anchor: site.anchors[a].id, tag: "t", distance: nil,
                            direction: .angles(azimuth: b.az, elevation: b.el), time: Nanoseconds(k) * 50 * ms)
            try engine.handle(.ranging(r)) { if case .position(let p) = $0 { last = p } }
        }
        let p = try #require(last)
        // Noise-free bearings: within 5 cm in 3-D.
        #expect((p.position - truth).norm < 0.05)
    }

    @Test func theBearingGuessIntersectsTheRays() throws {
        let site = Self.room()
        let truth = Vec3(8, 2, 1.2)
        var obs: [Observation] = []
        for a in [0, 2] {
            let b = Self.bearing(site, a, truth)
            let toAnchor = site.anchors[a].orientation!.rotation.transposed
            obs.append(Observation(kind: .azimuth, anchor: a, anchorPosition: site.anchors[a].position,
                                   toAnchor: toAnchor, value: b.az, std: 0.087, time: 0))
            obs.append(Observation(kind: .elevation, anchor: a, anchorPosition: site.anchors[a].position,
                                   toAnchor: toAnchor, value: b.el, std: 0.087, time: 0))
        }
        let p = try #require(Multilateration.bearingGuess(obs, height: 1.2, dimensions: 2))
        // Exact rays: to 1 mm.
        #expect((p - truth).horizontalNorm < 1e-3)
    }

    /// Runs the room's simulation with known per-anchor offsets (degrees) and the default 5° noise;
    /// returns the engine's tracker, the RMSE of its positions after 30 s, and the share of errors
    /// inside the reported 95 % region after 2 s.
    static func run(learn: Bool, offsets: [(Double, Double)]) throws
        -> (tracker: SiteTracker, rmse: Double, coverage: Double) {
        let site = room()
        var engineConfig = EngineConfig()
        engineConfig.learnBias = learn
        var engine = Engine(sites: [site], config: engineConfig)
        var truth: [TruthSample] = [], estimates: [EstimateSample] = []
        let deg = Double.pi / 180
        try Simulator(site: site, config: SimulationConfig(tags: 3, duration: 60, seed: 11)).generate(event: { e in
            var e = e
            if case .ranging(var r) = e, let a = site.anchorIndex[r.anchor], case .angles(let az?, let el?)? = r.direction {
                r.direction = .angles(azimuth: az + offsets[a].0 * deg, elevation: el + offsets[a].1 * deg)
                e = .ranging(r)
            }
            try engine.handle(e) { if case .position(let p) = $0 { estimates.append(EstimateSample(p)) } }
        }, truth: { truth.append($0) })
        let m = Evaluation(truth: truth, estimates: estimates, dimensions: [site.id: 2],
                           options: Evaluation.Options(warmup: 30, warmupOrigin: .firstTruth)).site(site.id)
        let all = Evaluation(truth: truth, estimates: estimates, dimensions: [site.id: 2],
                             options: Evaluation.Options(warmup: 2, warmupOrigin: .firstTruth)).site(site.id)
        return (try #require(engine.tracker(site.id)), try #require(m?.rmse), try #require(all?.coverage95))
    }

    @Test func theLearnerRecoversKnownAngleOffsets() throws {
        let offsets = [(8.0, -6.0), (-7.0, 9.0), (6.0, 7.0), (-9.0, -5.0)]
        let (tracker, rmse, _) = try Self.run(learn: true, offsets: offsets)
        let learner = tracker.learnedBias
        for (a, o) in offsets.enumerated() {
            let az = learner.bias[learner.angleSlot(anchor: a, elevation: false)] * 180 / .pi
            let el = learner.bias[learner.angleSlot(anchor: a, elevation: true)] * 180 / .pi
            // Within 1.5° of the true offset (5° noise, a minute of three tags).
            #expect(abs(az - o.0) < 1.5, "anchor \(a) azimuth offset \(az)° vs \(o.0)°")
            #expect(abs(el - o.1) < 1.5, "anchor \(a) elevation offset \(el)° vs \(o.1)°")
        }
        // And the positions gain from it: less than 0.7 of the RMSE without learning.
        let without = try Self.run(learn: false, offsets: offsets).rmse
        #expect(rmse < 0.7 * without, "RMSE \(rmse) m with learning, \(without) m without")
    }

    @Test func theRegionCoversTheErrorsWhileOffsetsAreLearned() throws {
        // From the first seconds on, before the offsets are learned: the offsets' uncertainty is in
        // the bearings' σ and in the reported covariance.
        let coverage = try Self.run(learn: true, offsets: [(-8.0, 6.0), (7.0, -9.0), (-6.0, -7.0), (9.0, 5.0)]).coverage
        #expect((0.85...0.995).contains(coverage), "cov95 \(coverage)")
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
