import Testing
import Numerics
@testable import Positioning

/// Horizontal RMSE (m) of the engine on the demo warehouse (biases zeroed) with a third of the
/// anchor-tag pairs' episodes NLOS, 6 moving or resting tags for 60 s.
private func racksRMSE(_ config: EngineConfig) -> Double {
    var site = Site.demoWarehouse
    for i in site.anchors.indices { site.anchors[i].rangeBias = 0 }
    let sim = SimulationConfig(tags: 6, duration: 60, seed: 21, nlosProbability: 1.0 / 3.0)
    let (events, truth) = Simulator(site: site, config: sim).run()
    var tracker = SiteTracker(site: site, config: config)
    var estimates: [EstimateSample] = []
    for e in events {
        try? tracker.handle(e) { if case .position(let p) = $0 { estimates.append(EstimateSample(p)) } }
    }
    return Evaluation(truth: truth, estimates: estimates, dimensions: [site.id: 2]).site(site.id)!.rmse
}

@Suite struct PairNLOSTests {
    /// A pair whose ranges come out about 0.8 m long, again and again, is taken for blocked, and its
    /// excess is learned: the correction approaches the excess and its added variance shrinks. One
    /// short range (a noise draw) then does not undo it at once.
    @Test func aPersistentExcessIsLearned() {
        let config = EngineConfig()
        var pair = PairNLOS(config: config)
        // Innovation variance: 0.1 m noise and a well-placed tag.
        let s = 0.012
        var c = (shift: 0.0, variance: 0.0)
        for k in 0..<25 {
            c = pair.observe(0.8 + (k % 2 == 0 ? 0.05 : -0.05), variance: s, interval: 0.2, config: config)
        }
        #expect(pair.probability > 0.99, "P(NLOS) \(pair.probability)")
        // Within 0.05 m (the alternating noise is ±0.05 m and the excess may drift by 0.02 m a line).
        #expect(abs(c.shift - 0.8) < 0.05, "shift \(c.shift)")
        #expect(c.variance < 0.02, "added variance \(c.variance)")
        _ = pair.observe(0.55, variance: s, interval: 0.2, config: config)
        #expect(pair.probability > 0.9, "P(NLOS) after one short range \(pair.probability)")
    }

    /// Line of sight: zero-mean innovations keep the blocked hypothesis unlikely, so ranges are not
    /// shifted (a shift on clear paths would bias every position short).
    @Test func lineOfSightIsNotShifted() {
        let config = EngineConfig()
        var pair = PairNLOS(config: config)
        var rng = SeededRandom(seed: 3)
        var sum = 0.0
        for _ in 0..<500 {
            let c = pair.observe(0.11 * rng.nextGaussian(), variance: 0.012, interval: 0.2, config: config)
            sum += c.shift
        }
        // Occasional 2–3 σ draws raise the probability briefly; on average the shift is a small
        // fraction of σ (0.11 m).
        #expect(sum / 500 < 0.01, "mean shift \(sum / 500) m")
    }

    /// The racks scenario: with the pairs' NLOS hypotheses the engine is more accurate than with the
    /// running excess alone (the engine before them, but for its Huber weighting: with no switching the
    /// blocked hypothesis is never entertained).
    /// Measured: 0.196 m with, 0.225 m without on this seed; the bound 0.21 m sits between them.
    @Test func blockedPairsAreCorrected() {
        let with = racksRMSE(EngineConfig())
        var old = EngineConfig()
        old.nlosSwitchTime = .infinity
        let without = racksRMSE(old)
        #expect(with < 0.21, "RMSE \(with) m with the NLOS hypotheses, \(without) m without")
        #expect(without > with)
    }
}
