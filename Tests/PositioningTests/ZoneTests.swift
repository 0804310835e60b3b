import Testing
import Numerics
@testable import Positioning

/// Zone enter/exit with hysteresis (`ZoneHysteresis`) and its use by the tracker.
@Suite struct ZoneTests {
    /// A 5 × 4 m dock from x = 5 to 10: its left edge, x = 5, is the boundary the tag walks along.
    static let dock = Zone(id: "dock", name: "Dock", polygon: [(5, 0), (10, 0), (10, 4), (5, 4)])

    static func site(dimensions: Int = 2, zones: [Zone] = [dock]) -> Site {
        var s = testSite(dimensions: dimensions)
        s = Site(id: s.id, name: s.name, dimensions: s.dimensions, tagHeight: s.tagHeight, bounds: s.bounds,
                 anchors: s.anchors, zones: zones)
        return s
    }

    static func estimate(_ x: Double, _ y: Double, _ z: Double = 1, sigma: Double, t: Double) -> PositionEstimate {
        PositionEstimate(site: "hall", tag: "T1", position: Vec3(x, y, z), velocity: Vec3(0, 0, 0),
                         covXX: sigma * sigma, covXY: 0, covYY: sigma * sigma, covZZ: sigma * sigma,
                         anchors: 4, motion: .moving, time: Nanoseconds(t * 1e9))
    }

    /// The tag walks from x = 3 to the boundary x = 5, stands on it for 30 s with 5 cm noise (σ = 5 cm
    /// reported), walks in to x = 7, back out to x = 3: 10 Hz estimates.
    static func boundaryWalk(_ h: ZoneHysteresis) -> [Output] {
        var rng = SeededRandom(seed: 11)
        var inside: [ZoneMembership] = []
        var out: [Output] = []
        var t = 0.0
        func at(_ x: Double) {
            let e = estimate(x + 0.05 * rng.nextGaussian(), 2 + 0.05 * rng.nextGaussian(), sigma: 0.05, t: t)
            h.update(e, inside: &inside, emit: { out.append($0) })
            t += 0.1
        }
        for i in 0..<20 { at(3 + 0.1 * Double(i)) }
        for _ in 0..<300 { at(5) }
        for i in 0..<20 { at(5 + 0.1 * Double(i)) }
        for i in 0..<40 { at(7 - 0.1 * Double(i)) }
        return out
    }

    static func events(_ out: [Output]) -> [ZoneEvent] {
        out.compactMap { if case .zone(_, _, _, let e, _) = $0 { e } else { nil } }
    }

    @Test func signedDistanceToTheBoundary() {
        let z = Self.dock
        #expect(abs(z.signedDistance(x: 6, y: 2) - 1) < 1e-12, "1 m inside from the left edge")
        #expect(abs(z.signedDistance(x: 4, y: 2) + 1) < 1e-12, "1 m outside")
        #expect(abs(z.signedDistance(x: 11, y: 5) + 2.squareRoot()) < 1e-12, "outside a corner")
    }

    @Test func boundaryWalkingTagEntersOnceAndExitsOnce() {
        let hysteresis = ZoneHysteresis(site: Self.site(), config: EngineConfig())
        #expect(Self.events(Self.boundaryWalk(hysteresis)) == [.enter, .exit])
        // The same walk without hysteresis flickers while the tag stands on the boundary.
        var bare = EngineConfig()
        bare.zoneSigmaK = 0
        bare.zoneMargin = 0
        bare.zoneConfirmations = 1
        let flicker = Self.events(Self.boundaryWalk(ZoneHysteresis(site: Self.site(), config: bare)))
        #expect(flicker.count > 20, "\(flicker.count) events without hysteresis")
    }

    @Test func largeUncertaintyWidensTheBand() {
        let h = ZoneHysteresis(site: Self.site(), config: EngineConfig())
        var inside: [ZoneMembership] = []
        var out: [Output] = []
        // 0.5 m inside, but σ = 0.5 m: the band is 1 m, so no enter.
        for t in 0..<5 { h.update(Self.estimate(5.5, 2, sigma: 0.5, t: Double(t)), inside: &inside, emit: { out.append($0) }) }
        #expect(out.isEmpty)
        // σ = 0.1 m: the band is 0.2 m; the third such estimate (t = 7 s) confirms the enter.
        for t in 5..<9 { h.update(Self.estimate(5.5, 2, sigma: 0.1, t: Double(t)), inside: &inside, emit: { out.append($0) }) }
        #expect(out == [.zone(site: "hall", tag: "T1", zone: "dock", event: .enter, time: 7_000_000_000)])
    }

    @Test func heightLimitsOn3DSites() {
        let shelf = Zone(id: "shelf", name: "Shelf", polygon: Self.dock.polygon, minZ: 0, maxZ: 2)
        let h = ZoneHysteresis(site: Self.site(dimensions: 3, zones: [shelf]), config: EngineConfig())
        var inside: [ZoneMembership] = []
        var out: [Output] = []
        // Three estimates at each height, one per second.
        for (i, z) in [1.0, 1.85, 2.05, 2.5, 1.5].enumerated() {
            for k in 0..<3 {
                h.update(Self.estimate(7, 2, z, sigma: 0.05, t: Double(3 * i + k)), inside: &inside, emit: { out.append($0) })
            }
        }
        // z = 1 enters; 1.85 and 2.05 are within the 0.1 m band of maxZ; 2.5 exits; 1.5 enters again.
        #expect(Self.events(out) == [.enter, .exit, .enter])
        #expect(out.compactMap { if case .zone(_, _, _, _, let t) = $0 { t / 1_000_000_000 } else { nil } } == [Int64(2), 11, 14])
        // The same zone on a 2-D site ignores the height limits.
        let flat = ZoneHysteresis(site: Self.site(dimensions: 2, zones: [shelf]), config: EngineConfig())
        var flatInside: [ZoneMembership] = []
        out = []
        for t in 0..<3 { flat.update(Self.estimate(7, 2, 3, sigma: 0.05, t: Double(t)), inside: &flatInside, emit: { out.append($0) }) }
        #expect(Self.events(out) == [.enter])
    }

    @Test func trackerEmitsZoneEventsAndExitsOnRemoval() throws {
        var tracker = SiteTracker(site: Self.site())
        let out = feed(&tracker, seconds: 3, path: { _ in Vec3(7, 2, 1) })
        #expect(Self.events(out) == [.enter])
        // Last heard at 3 s: one more range then.
        let lastHeard: Nanoseconds = 3_000_000_000
        let a = tracker.site.anchors[0]
        try tracker.handle(.ranging(Ranging(site: "hall", anchor: "A0", tag: "T1", technology: .uwb,
                                            distance: (Vec3(7, 2, 1) - a.position).norm, time: lastHeard))) { _ in }
        var removal: [Output] = []
        tracker.advance(to: 14_000_000_000) { removal.append($0) }
        // Timed out: it leaves its zones when it was last heard (the dwell leaves out the timeout),
        // then is removed now.
        #expect(removal == [
            .zone(site: "hall", tag: "T1", zone: "dock", event: .exit, time: lastHeard),
            .removed(site: "hall", tag: "T1", reason: .timeout, time: 14_000_000_000),
        ], "a removed tag leaves its zones first")
    }

    @Test func aTagWhoseSessionsEndedLeavesItsZonesThen() throws {
        var tracker = SiteTracker(site: Self.site())
        let out = feed(&tracker, seconds: 3, path: { _ in Vec3(7, 2, 1) })
        #expect(Self.events(out) == [.enter])
        var removal: [Output] = []
        for a in tracker.site.anchors.indices {
            try tracker.handle(.removed(site: "hall", anchor: "A\(a)", tag: "T1", reason: .peerEnded, time: 5_000_000_000)) {
                removal.append($0)
            }
        }
        #expect(removal == [
            .zone(site: "hall", tag: "T1", zone: "dock", event: .exit, time: 5_000_000_000),
            .removed(site: "hall", tag: "T1", reason: .peerEnded, time: 5_000_000_000),
        ])
    }
}
