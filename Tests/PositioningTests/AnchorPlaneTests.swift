import Testing
import Numerics
@testable import Positioning

/// Sites whose anchors lie in one plane: four anchors place a tag in 3-D, the mirror image through the
/// plane is decided by the bounds (a filter on the impossible side moves to its image), and while it
/// cannot be decided the position carries the image and a covariance that covers it.
@Suite struct AnchorPlaneTests {
    /// Four tripod anchors at 0.55 m around a 6 × 6 × 2.5 m flight area.
    static let tripods = Site(id: "tripods", name: "Tripods", dimensions: 3, tagHeight: nil,
                              bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(6, 6, 2.5)),
                              anchors: [Vec3(0.5, 0.5, 0.55), Vec3(5.5, 0.5, 0.55), Vec3(5.5, 5.5, 0.55), Vec3(0.5, 5.5, 0.55)]
                                .enumerated().map { Anchor(id: "T\($0.offset)", position: $0.element, technologies: [.uwb]) },
                              zones: [])
    /// Four wall anchors at 2.3–2.6 m in an 8 × 6 × 3 m room (near one plane, not in it).
    static let room = Site(id: "room", name: "Room", dimensions: 3, tagHeight: nil,
                           bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(8, 6, 3)),
                           anchors: [Vec3(0.1, 0.1, 2.3), Vec3(7.9, 0.1, 2.6), Vec3(7.9, 5.9, 2.4), Vec3(0.1, 5.9, 2.5)]
                            .enumerated().map { Anchor(id: "A\($0.offset)", position: $0.element, technologies: [.uwb]) },
                           zones: [])

    /// Exact ranges (deterministic noise of ±`noise` m from a seeded stream) from every anchor to a tag
    /// at `position(t)`, 5 Hz per anchor for `seconds`; the positions the tracker emits.
    static func track(_ site: Site, seconds: Double, noise: Double = 0.02, seed: UInt64 = 3,
                      position: (Double) -> Vec3) -> (positions: [PositionEstimate], proximity: Int) {
        var tracker = SiteTracker(site: site)
        var rng = SeededRandom(seed: seed)
        var out: [PositionEstimate] = [], proximity = 0
        let steps = Int(seconds * 5)
        for k in 0..<steps {
            for (i, a) in site.anchors.enumerated() {
                let t = Double(k) / 5 + Double(i) * 0.05
                let d = (position(t) - a.position).norm + noise * rng.nextGaussian()
                try? tracker.handle(.ranging(Ranging(site: site.id, anchor: a.id, tag: "T", distance: d, std: 0.1,
                                                     time: Nanoseconds(t * 1e9) + 1_000_000_000))) { o in
                    if case .position(let p) = o { out.append(p) }
                    if case .proximity = o { proximity += 1 }
                }
            }
        }
        return (out, proximity)
    }

    /// Squared Mahalanobis distance of `d` under the estimate's 3-D covariance.
    static func mahalanobis2(_ e: PositionEstimate, _ d: Vec3) -> Double {
        let c = [e.covXX, e.covXY, e.covXZ, e.covXY, e.covYY, e.covYZ, e.covXZ, e.covYZ, e.covZZ]
        let inv = SmallLeastSquares.inverseSPD(c, n: 3)!
        var m = 0.0
        for i in 0..<3 { for j in 0..<3 { m += d[i] * inv[i * 3 + j] * d[j] } }
        return m
    }

    /// The plane of tripods and of near-level wall anchors is found, with a normal along z; the hall's
    /// anchors (1.5–9.5 m) and the atrium's are not one plane. Tolerance: Jacobi rotations converge
    /// to rounding (1e-9 on unit vectors).
    @Test func planesAreFoundWhereTheAnchorsLieInOne() throws {
        let tripods = try #require(AnchorPlane(points: Self.tripods.anchors.map(\.position)))
        #expect(abs(tripods.normal.z - 1) < 1e-9 && abs(tripods.origin.z - 0.55) < 1e-9)
        #expect(abs(tripods.mirror(of: Vec3(2, 3, 1.55)).z - -0.45) < 1e-9)
        let room = try #require(AnchorPlane(points: Self.room.anchors.map(\.position)))
        #expect(room.normal.z > 0.99)
        #expect(AnchorPlane(points: Site.hall.anchors.map(\.position)) == nil)
        // A tilted plane: its normal is found whatever the rotation.
        let tilted = [Vec3(0, 0, 0), Vec3(10, 0, 5), Vec3(0, 8, 0), Vec3(10, 8, 5)]
        let plane = try #require(AnchorPlane(points: tilted))
        let expected = Vec3(-5, 0, 10).normalized!
        #expect(abs(abs(plane.normal.dot(expected)) - 1) < 1e-9)
    }

    /// Four anchors near one plane on the walls place a tag in 3-D (refused before: ranges alone took
    /// five anchors in 3-D). Tolerance: 2 cm range noise on anchors 0.3 m out of one plane gives
    /// height errors of about 0.1 m.
    @Test func fourWallAnchorsPlaceATagIn3D() throws {
        let truth = Vec3(3, 2.5, 1.2)
        let (positions, _) = Self.track(Self.room, seconds: 6) { _ in truth }
        let last = try #require(positions.last)
        #expect((last.position - truth).norm < 0.2, "\(last.position)")
        #expect(last.mirror == nil, "the image at 3.7 m is above the 3 m ceiling")
    }

    /// A filter below the floor whose image through the tripods' plane is inside the site moves to the
    /// image (position, velocity and covariance reflected); one whose image is impossible stays.
    @Test func aFilterOnTheImpossibleSideMovesToItsImage() {
        let context = TrackerContext(site: Self.tripods, config: EngineConfig())
        var track = TagTrack(anchorCount: 4, time: 0)
        let cov = [0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01]
        track.filter = TagFilter(position: Vec3(3, 3, -0.6), covariance: cov, dimensions: 3, velocityStd: 1, time: 0)
        #expect(context.resolveMirror(&track, time: 0))
        #expect(abs(track.filter!.position.z - 1.7) < 1e-12)
        #expect(!track.mirrorUndecided)
        track.filter = TagFilter(position: Vec3(3, 3, 1.7), covariance: cov, dimensions: 3, velocityStd: 1, time: 0)
        #expect(context.resolveMirror(&track, time: 0))
        #expect(track.filter!.position.z == 1.7)
    }

    /// Tags flying at 0–2.2 m over the tripods, whose site declares `tagHeightRange` [0, 2.2]: 3 tags ×
    /// 90 s on seeds 7 and 11, 3-D RMSE 0.48 and 0.32 m with 95 % of the errors inside the 95 % region.
    /// While both sides of the plane are possible the range must not pull the filter: held at the
    /// range's lower edge, a filter on the wrong side never goes far enough below the floor for its
    /// image to be taken (then 0.69 and 0.96 m, with 93 % and 70 %).
    @Test func theHeightRangeDoesNotHoldAFilterOnTheWrongSide() {
        var site = Self.tripods
        site.tagHeightRange = 0...2.2
        for seed: UInt64 in [7, 11] {
            let sim = SimulationConfig(tags: 3, duration: 90, seed: seed)
            var tracker = SiteTracker(site: site)
            var estimates: [EstimateSample] = [], truth: [TruthSample] = []
            Simulator(site: site, config: sim).generate(event: { e in
                try? tracker.handle(e) { o in
                    guard case .position(let p) = o else { return }
                    estimates.append(EstimateSample(site: p.site, tag: p.tag, time: p.time, position: p.position,
                                                    covariance: PositionCovariance(xx: p.covXX, xy: p.covXY, yy: p.covYY,
                                                                                   xz: p.covXZ, yz: p.covYZ, zz: p.covZZ)))
                }
            }, truth: { truth.append($0) })
            let m = Evaluation(truth: truth, estimates: estimates, dimensions: [site.id: 3]).site(site.id)
            #expect((m?.rmse ?? .infinity) < 0.6, "seed \(seed): RMSE \(m?.rmse ?? .nan) m")
            #expect((m?.coverage95 ?? 0) >= 0.85, "seed \(seed): coverage \(m?.coverage95 ?? .nan)")
        }
    }

    /// A tag hovering 0.25 m below the tripods' plane, where its image (0.8 m) is as possible as itself:
    /// every position carries the image, and the 95 % region (χ² 7.815, 3-D) holds both points.
    @Test func anUndecidedSideIsPublishedWithBothCandidates() throws {
        let truth = Vec3(2.5, 3.5, 0.3)
        let (positions, _) = Self.track(Self.tripods, seconds: 8) { _ in truth }
        let late = positions.suffix(10)
        #expect(late.count == 10)
        for p in late {
            let mirror = try #require(p.mirror)
            #expect(abs(mirror.z + p.position.z - 1.1) < 1e-9)
            #expect((p.position - truth).horizontalNorm < 0.1)
            let candidate = abs(p.position.z - 0.3) < abs(mirror.z - 0.3) ? p.position : mirror
            #expect(abs(candidate.z - 0.3) < 0.15, "one of the two candidates is the tag: \(p.position.z), \(mirror.z)")
            #expect(Self.mahalanobis2(p, truth - p.position) < 7.815)
            #expect(Self.mahalanobis2(p, mirror - p.position) < 7.815)
        }
    }

    /// A tag rising from 0.15 m to 2.2 m through the tripods' plane at 0.4 m/s while crossing the area:
    /// the track is never lost (no proximity line after the first position) and ends on the right side
    /// with its side decided by the floor.
    @Test func aTagCrossingThePlaneKeepsItsTrack() throws {
        let path = { (t: Double) in Vec3(1.5 + 0.3 * t, 2 + 0.2 * t, min(2.2, 0.15 + 0.4 * max(0, t - 2))) }
        let (positions, proximity) = Self.track(Self.tripods, seconds: 9, position: path)
        let first = try #require(positions.first)
        #expect(proximity <= 2, "placed within the first line of each anchor")
        let last = try #require(positions.last)
        let truth = path(Double(last.time - 1_000_000_000) * 1e-9)
        #expect(abs(last.position.z - truth.z) < 0.25, "z \(last.position.z) for \(truth.z)")
        #expect(last.mirror == nil)
        #expect(positions.count > 80 && first.time < 1_500_000_000)
    }

    /// Anchors near one plane but not in it: in the room with a 4.5 m ceiling, a tag at 1.2 m, whose
    /// image (about 3.7 m) is under the ceiling, is told from its image by the ranges' fit within
    /// seconds. Tolerance on z: 2 cm noise, anchors 0.3 m out of one plane.
    @Test func nearlyPlanarAnchorsDecideTheSideByTheirFit() throws {
        var site = Self.room
        site.bounds.max.z = 4.5
        let truth = Vec3(4, 3, 1.2)
        let (positions, _) = Self.track(site, seconds: 12) { _ in truth }
        #expect(positions.prefix(5).allSatisfy { $0.mirror != nil }, "undecided at first")
        let last = try #require(positions.last)
        #expect(last.mirror == nil, "decided")
        #expect(abs(last.position.z - 1.2) < 0.15, "z \(last.position.z)")
    }
}

/// Four anchors are a site with one range to spare: it can show that some range is wrong, not which.
@Suite struct FourAnchorRoomTests {
    /// The four-anchor room of the benchmark, 3 tags carried at 0.8–1.6 m for 40 s in line of sight:
    /// 3-D RMSE under 0.25 m on two seeds (0.13–0.17 m). With ranges longer than predicted taken for
    /// blocked paths, the filter can drop one anchor and sit where the other three meet: 0.3–0.5 m.
    @Test func fourAnchorsAreNotReadAsBlockedPaths() {
        let site = AnchorPlaneTests.room
        for seed: UInt64 in [31, 32] {
            var sim = SimulationConfig(tags: 3, duration: 40, seed: seed)
            sim.heightRange = 0.8...1.6
            var tracker = SiteTracker(site: site)
            var estimates: [EstimateSample] = [], truth: [TruthSample] = []
            Simulator(site: site, config: sim).generate(event: { e in
                try? tracker.handle(e) { o in
                    if case .position(let p) = o {
                        estimates.append(EstimateSample(site: p.site, tag: p.tag, time: p.time, position: p.position))
                    }
                }
            }, truth: { truth.append($0) })
            let m = Evaluation(truth: truth, estimates: estimates, dimensions: [site.id: 3]).site(site.id)
            #expect((m?.rmse ?? .infinity) < 0.25, "seed \(seed): \(m?.rmse ?? .nan) m")
        }
    }
}
