import Testing
import Foundation
import Numerics
@testable import Positioning

/// A 20 × 12 m test hall with six UWB anchors at 3 m, one of them oriented (direction-capable).
func testSite(dimensions: Int = 2) -> Site {
    let positions = [Vec3(0, 0, 3), Vec3(20, 0, 3), Vec3(20, 12, 3), Vec3(0, 12, 3), Vec3(10, 0, 2.5), Vec3(10, 12, 0.5)]
    let anchors = positions.enumerated().map { i, p in
        Anchor(id: "A\(i)", position: p, technologies: [.uwb],
               orientation: i == 0 ? Orientation(yaw: .pi / 4, pitch: 0.2, roll: 0) : nil,
               fieldOfView: i == 0 ? 120 * .pi / 180 : nil, rangeBias: 0, rangeStd: nil)
    }
    return Site(id: "hall", name: "Hall", dimensions: dimensions, tagHeight: dimensions == 2 ? 1.0 : nil,
                bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(20, 12, 4)), anchors: anchors, zones: [])
}

/// Feeds round-robin ranges of a tag on `path(t)` from every anchor at `rate` Hz per anchor.
/// - Parameters:
///   - bias: added to each anchor's true range (metres).
///   - corrupt: may replace a range (anchor index, time in s, true range) by another value.
@discardableResult
func feed(_ tracker: inout SiteTracker, tag: String = "T1", seconds: Double, from start: Double = 0,
          rate: Double = 10, noise: Double = 0.05, seed: UInt64 = 3, bias: [Double]? = nil,
          anchors: [Int]? = nil, path: (Double) -> Vec3,
          corrupt: (Int, Double, Double) -> Double? = { _, _, _ in nil }) -> [Output] {
    var rng = SeededRandom(seed: seed)
    var outputs: [Output] = []
    let ids = anchors ?? Array(tracker.site.anchors.indices)
    let step = 1 / (rate * Double(ids.count))
    var t = start
    var k = 0
    while t < start + seconds {
        let a = ids[k % ids.count]
        let p = path(t)
        let truth = (p - tracker.site.anchors[a].position).norm
        let d = corrupt(a, t, truth) ?? (truth + (bias?[a] ?? 0) + noise * rng.nextGaussian())
        let r = Ranging(site: tracker.site.id, anchor: "A\(a)", tag: tag, technology: .uwb, distance: max(0, d),
                        time: Nanoseconds(t * 1e9))
        try! tracker.handle(.ranging(r)) { outputs.append($0) }
        t += step
        k += 1
    }
    return outputs
}

func lastPosition(_ outputs: [Output]) -> PositionEstimate? {
    for o in outputs.reversed() { if case .position(let p) = o { return p } }
    return nil
}

func positions(_ outputs: [Output], after t: Double) -> [PositionEstimate] {
    outputs.compactMap { if case .position(let p) = $0, Double(p.time) * 1e-9 >= t { return p } else { return nil } }
}

@Suite struct SiteTrackerTests {
    @Test func convergesOnAMovingTag() throws {
        var tracker = SiteTracker(site: testSite())
        let path = { (t: Double) in Vec3(4 + 0.8 * t, 6 + 2 * sin(t / 3), 1.0) }
        let out = feed(&tracker, seconds: 15, path: path)
        let late = positions(out, after: 3)
        let rms = (late.map { ($0.position - path(Double($0.time) * 1e-9)).horizontalNorm }
            .map { $0 * $0 }.reduce(0, +) / Double(late.count)).squareRoot()
        // 0.05 m ranges from six anchors: a working filter is within a few centimetres; a broken
        // one (no update, wrong sign, no prediction) is metres off on a path moving 0.8 m/s.
        #expect(rms < 0.1)
        #expect(late.allSatisfy { $0.anchors == 6 && $0.sigma < 0.2 && $0.position.z == 1.0 })
    }

    @Test func tracksIn3D() throws {
        var tracker = SiteTracker(site: testSite(dimensions: 3))
        let p0 = Vec3(7, 5, 1.6)
        let out = feed(&tracker, seconds: 8, path: { _ in p0 })
        let p = try #require(lastPosition(out))
        #expect((p.position - p0).norm < 0.15, "3-D fix from anchors at 0.5–3 m")
        #expect(p.covZZ > 0)
    }

    @Test func stationaryHintReducesErrorOnAStillTag() {
        let p0 = Vec3(12, 4, 1.0)
        func run(hint: MotionState?) -> Double {
            var tracker = SiteTracker(site: testSite())
            if let hint { try! tracker.handle(.motion(site: "hall", tag: "T1", state: hint, time: 0)) { _ in } }
            _ = feed(&tracker, seconds: 0.5, path: { _ in p0 })
            if let hint { try! tracker.handle(.motion(site: "hall", tag: "T1", state: hint, time: 500_000_000)) { _ in } }
            let out = feed(&tracker, seconds: 30, from: 0.5, noise: 0.15, path: { _ in p0 })
            let late = positions(out, after: 10)
            return (late.map { pow(($0.position - p0).horizontalNorm, 2) }.reduce(0, +) / Double(late.count)).squareRoot()
        }
        let moving = run(hint: .moving), still = run(hint: .stationary)
        // The stationary model averages the noise down instead of following it: at least 2× better.
        #expect(still * 2 < moving, "stationary \(still) vs moving \(moving)")
    }

    @Test func aMotionHintBeforeTheFirstRangeIsKept() throws {
        var tracker = SiteTracker(site: testSite())
        try tracker.handle(.motion(site: "hall", tag: "T1", state: .stationary, time: 0)) { _ in }
        let out = feed(&tracker, seconds: 2, from: 0.01, path: { _ in Vec3(5, 5, 1) })
        #expect(try #require(lastPosition(out)).motion == .stationary)
    }

    @Test func oneAnchorWithoutDirectionGivesProximityNeverAPosition() {
        var tracker = SiteTracker(site: testSite())
        let out = feed(&tracker, seconds: 3, anchors: [2], path: { _ in Vec3(15, 8, 1) })
        #expect(!out.isEmpty)
        #expect(out.allSatisfy { if case .proximity(_, "T1", "A2", _, nil, _) = $0 { true } else { false } })
    }

    @Test func directionsOutsideTheFieldOfViewAreNotUsed() throws {
        let site = testSite()
        let anchor = site.anchors[0]
        func run(to p: Vec3) -> [Output] {
            var tracker = SiteTracker(site: site)
            var out: [Output] = []
            for k in 0..<20 {
                let v = anchor.orientation!.toAnchor(p - anchor.position)
                let r = Ranging(site: "hall", anchor: "A0", tag: "T1", distance: v.norm,
                                direction: .vector(v.normalized!), time: Nanoseconds(k) * 100_000_000)
                try! tracker.handle(.ranging(r)) { out.append($0) }
            }
            return out
        }
        // In front of the anchor (yaw 45°): range + direction place the tag.
        let inside = run(to: Vec3(6, 6, 1))
        let p = try #require(lastPosition(inside))
        #expect((p.position - Vec3(6, 6, 1)).horizontalNorm < 0.05)
        // Behind it (outside the 120° cone): the direction is dropped, so only "distance only".
        let behind = run(to: Vec3(0.5, -3, 1))
        #expect(lastPosition(behind) == nil)
        #expect(behind.contains { if case .proximity = $0 { true } else { false } })
    }

    @Test func silentTagIsRemovedByTimeout() {
        var tracker = SiteTracker(site: testSite())
        feed(&tracker, seconds: 2, path: { _ in Vec3(5, 5, 1) })
        var out: [Output] = []
        tracker.advance(to: 8_000_000_000) { out.append($0) }
        #expect(out.isEmpty, "8 s: still within the 10 s timeout")
        tracker.advance(to: 13_000_000_000) { out.append($0) }
        #expect(out == [.removed(site: "hall", tag: "T1", reason: .timeout, time: 13_000_000_000)])
        #expect(tracker.tagCount == 0)
    }

    @Test func suspendedTagIsKeptAndPeerEndedRemoves() {
        var tracker = SiteTracker(site: testSite())
        feed(&tracker, seconds: 2, path: { _ in Vec3(5, 5, 1) })
        var out: [Output] = []
        for a in 0..<6 {
            try! tracker.handle(.session(site: "hall", anchor: "A\(a)", tag: nil, state: .suspended, time: 2_000_000_000)) { out.append($0) }
        }
        tracker.advance(to: 30_000_000_000) { out.append($0) }
        #expect(out.isEmpty, "a suspended tag is paused, not lost")
        #expect(tracker.estimate(of: "T1") != nil)
        for a in 0..<6 {
            try! tracker.handle(.removed(site: "hall", anchor: "A\(a)", tag: "T1", reason: .peerEnded, time: 31_000_000_000)) { out.append($0) }
        }
        #expect(out == [.removed(site: "hall", tag: "T1", reason: .peerEnded, time: 31_000_000_000)],
                "removed once, when the last anchor's session ends")
    }

    @Test func recoversFromAWrongStart() {
        var tracker = SiteTracker(site: testSite())
        // The first second places the tag 8 m away (a bad start); then the real ranges arrive.
        feed(&tracker, seconds: 1, path: { _ in Vec3(16, 9, 1) })
        let truth = Vec3(5, 3, 1)
        let out = feed(&tracker, seconds: 6, from: 1, path: { _ in truth })
        let p = positions(out, after: 4)
        // A hard chi-square gate would reject every real range forever; ours re-initialises.
        #expect(!p.isEmpty && p.allSatisfy { ($0.position - truth).horizontalNorm < 0.15 })
    }

    @Test func garbageRangesDoNotCaptureTheFilter() {
        var tracker = SiteTracker(site: testSite())
        let truth = Vec3(9, 7, 1)
        // One anchor reports garbage (10–30 m too long) for 5 seconds.
        let out = feed(&tracker, seconds: 12, path: { _ in truth }) { a, t, r in
            a == 1 && t > 3 && t < 8 ? r + 10 + 20 * (t - 3) / 5 : nil
        }
        let p = positions(out, after: 2)
        let worst = p.map { ($0.position - truth).horizontalNorm }.max() ?? .infinity
        #expect(worst < 0.3, "worst \(worst) at \(p.max { ($0.position - truth).horizontalNorm < ($1.position - truth).horizontalNorm }.map { Double($0.time) * 1e-9 } ?? 0) s")
    }

    @Test func learnsAnUncalibratedAnchorBias() {
        let bias = [0.0, 0.35, 0, 0, 0, 0]
        let path = { (t: Double) in Vec3(10 + 6 * cos(t / 4), 6 + 4 * sin(t / 4), 1) }
        func run(learn: Bool) -> (Double, Double) {
            var config = EngineConfig()
            config.learnBias = learn
            config.biasWindow = 2000
            var tracker = SiteTracker(site: testSite(), config: config)
            let out = feed(&tracker, seconds: 60, rate: 20, bias: bias, path: path)
            let late = positions(out, after: 40)
            let rms = (late.map { pow(($0.position - path(Double($0.time) * 1e-9)).horizontalNorm, 2) }
                .reduce(0, +) / Double(late.count)).squareRoot()
            return (rms, tracker.learnedBias.bias(anchor: 1, technology: .uwb))
        }
        let (withLearning, learned) = run(learn: true)
        let (without, _) = run(learn: false)
        // The learned bias approaches 0.35 m (within 0.1 m after 60 s of a loop), and positions improve.
        #expect(abs(learned - 0.35) < 0.1, "learned \(learned)")
        #expect(withLearning < without, "with \(withLearning) vs without \(without)")
    }
}
