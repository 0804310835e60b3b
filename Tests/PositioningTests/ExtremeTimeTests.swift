import Testing
import Numerics
@testable import Positioning

/// Timestamps at the ends of `Int64`, and jumps between them, go through the engine without a trap:
/// a gateway may send any 19-digit number, and the time arithmetic saturates.
@Suite struct ExtremeTimeTests {
    /// Rounds of exact ranges to a tag at `truth`, from `start`, 20 ms apart; returns the last time.
    private func place(_ tracker: inout SiteTracker, tag: String, from start: Nanoseconds, rounds: Int = 10,
                       outputs: inout [Output]) throws -> Nanoseconds {
        let site = tracker.site
        let truth = Vec3(12, 8, site.tagHeight ?? 1)
        var time = start
        for _ in 0..<rounds {
            for a in site.anchors where a.technologies.contains(.uwb) {
                time = time.saturatingAdd(20_000_000)
                try? tracker.handle(.ranging(Ranging(site: site.id, anchor: a.id, tag: tag, technology: .uwb,
                                                     distance: (truth - a.position).norm, time: time))) {
                    outputs.append($0)
                }
            }
        }
        return time
    }

    @Test("a line stamped Int64.min, Int64.max or -7.5e18 after current lines, then current lines again")
    func extremeTimesDoNotTrap() throws {
        let site = Site.demoWarehouse
        let now: Nanoseconds = 1_700_000_000_000_000_000
        for extreme in [Nanoseconds.min, .max, -7_500_000_000_000_000_000, .min + 1, .max - 1] {
            var tracker = SiteTracker(site: site)
            var outputs: [Output] = []
            let t = try place(&tracker, tag: "T", from: now, outputs: &outputs)
            #expect(tracker.estimate(of: "T") != nil)
            // The same tag, and a new one, at the extreme; then the clock moves there and back.
            for tag in ["T", "U"] {
                try? tracker.handle(.ranging(Ranging(site: site.id, anchor: site.anchors[0].id, tag: tag,
                                                     technology: .uwb, distance: 3, time: extreme))) { outputs.append($0) }
                try? tracker.handle(.motion(site: site.id, tag: tag, state: .moving, time: extreme)) { outputs.append($0) }
                try? tracker.handle(.session(site: site.id, anchor: site.anchors[1].id, tag: tag, state: .resumed,
                                             time: extreme)) { outputs.append($0) }
            }
            tracker.advance(to: extreme) { outputs.append($0) }
            tracker.advance(to: t) { outputs.append($0) }
            _ = try place(&tracker, tag: "V", from: t, outputs: &outputs)
            _ = try place(&tracker, tag: "W", from: extreme, rounds: 3, outputs: &outputs)
            _ = tracker.estimates
            _ = tracker.anchorReports()
        }
    }

    @Test("the smoother takes a recording with extreme times")
    func smootherWithExtremeTimes() throws {
        var config = EngineConfig()
        config.recordForSmoothing = true
        var tracker = SiteTracker(site: .demoWarehouse, config: config)
        var outputs: [Output] = []
        let t = try place(&tracker, tag: "T", from: .min, outputs: &outputs)
        _ = try place(&tracker, tag: "T", from: .max - 10_000_000_000, outputs: &outputs)
        _ = try place(&tracker, tag: "T", from: t, outputs: &outputs)
        _ = tracker.smoothedEstimates()
    }

    @Test("saturating time arithmetic holds at the ends of Int64")
    func saturation() {
        #expect(Nanoseconds.max.saturatingAdd(1) == .max)
        #expect(Nanoseconds.min.saturatingAdd(-1) == .min)
        #expect(Nanoseconds.min.saturatingSubtract(1) == .min)
        #expect(Nanoseconds.max.saturatingSubtract(-1) == .max)
        #expect(Nanoseconds(5).saturatingSubtract(7) == -2)
        #expect(Nanoseconds(saturatingSeconds: 1e300) == .max)
        #expect(Nanoseconds(saturatingSeconds: -.infinity) == .min)
        #expect(Nanoseconds(saturatingSeconds: .nan) == 0)
        #expect(Nanoseconds(saturatingSeconds: 1.5) == 1_500_000_000)
        // 2^64 - 1 ns apart, within Double's precision (relative 1e-15).
        let span = Nanoseconds.max.seconds(since: .min)
        #expect(abs(span - 18_446_744_073.709_551_615) < 1e-5)
        #expect(Nanoseconds(3_000_000_000).seconds(since: 1_000_000_000) == 2)
    }
}

/// `sextant evaluate` reads times from files: truth and positions at the ends of `Int64`.
@Suite struct ExtremeEvaluationTimeTests {
    @Test("evaluation of truth and estimates stamped at the ends of Int64")
    func evaluationDoesNotTrap() throws {
        let times: [Nanoseconds] = [.min, .min + 1, -7_500_000_000_000_000_000, 0, 1_700_000_000_000_000_000, .max - 1, .max]
        let truth = times.map { TruthSample(site: "s", tag: "T", time: $0, position: Vec3(1, 2, 0)) }
        let estimates = times.map { EstimateSample(site: "s", tag: "T", time: $0, position: Vec3(1, 2.5, 0)) }
        let m = try #require(Evaluation(truth: truth, estimates: estimates,
                                        options: Evaluation.Options(warmup: 0)).site("s"))
        // Every estimate sits on a truth sample's time: all are interpolated, 0.5 m off.
        #expect(m.count == times.count)
        #expect(abs(m.max - 0.5) < 1e-12 && abs(m.median - 0.5) < 1e-12)   // 0.5 exactly, up to rounding
        let late = try #require(Evaluation(truth: truth, estimates: estimates,
                                           options: Evaluation.Options(warmup: 1e300)).site("s"))
        // The warm-up runs from the first estimate (Int64.min) for "for ever", saturated: Int64.min + Int64.max
        // is -1, so the four estimates from 0 on are evaluated.
        #expect(late.count == 4)
        // Two truth samples 2^64 - 1 ns apart: the gap saturates and is beyond any maxGap.
        let wide = [TruthSample(site: "s", tag: "T", time: .min, position: Vec3(0, 0, 0)),
                    TruthSample(site: "s", tag: "T", time: .max, position: Vec3(1, 0, 0))]
        let between = try #require(Evaluation(truth: wide, estimates: [EstimateSample(site: "s", tag: "T", time: 0, position: Vec3(0, 0, 0))],
                                              options: Evaluation.Options(warmup: 0)).site("s"))
        #expect(between.count == 0 && between.skipped == 1)
    }

    @Test("bearings stamped near Int64.min place a tag and teach the angle offsets without a trap")
    func bearingsNearTheEndOfTime() throws {
        // The angle offsets' round and the reported offsets' uncertainty look back from a line's time
        // (two round intervals, the anchor window): near Int64.min that arithmetic saturates.
        let site = AngleOfArrivalTests.room()
        var config = EngineConfig()
        config.correlationTime = 0
        var tracker = SiteTracker(site: site, config: config)
        var positions = 0
        let truth = Vec3(4, 3, 1.2)
        for k in 0..<200 {
            let a = k % site.anchors.count
            let p = truth + Vec3(0.01 * Double(k), 0, 0)
            let b = AngleOfArrivalTests.bearing(site, a, p)
            let r = Ranging(site: site.id, anchor: site.anchors[a].id, tag: "t", distance: nil,
                            direction: .angles(azimuth: b.az, elevation: b.el), time: .min + Nanoseconds(k) * 5_000_000)
            try tracker.handle(.ranging(r)) { if case .position = $0 { positions += 1 } }
        }
        #expect(positions > 0)
        let estimate = try #require(tracker.estimate(of: "t"))
        // Noise-free bearings of a tag moving 2 m along x: within 0.3 m of where it ended.
        #expect((estimate.position - (truth + Vec3(1.99, 0, 0))).horizontalNorm < 0.3)
        #expect(tracker.learnedBias.samples.contains { $0 > 0 }, "the angle offsets' round must have run")
    }
}
