import Testing
import Numerics
@testable import Positioning

/// The mean over a run of the anchors' mean absolute learned bias (m), for 8 tags × 90 s on the
/// atrium of `BiasLearnerTests`, calibrated (no range bias), with a third of the pairs' episodes
/// blocked (+0.2–1.5 m).
private func meanLearnedBias(seed: UInt64, config: EngineConfig) -> Double {
    let site = atrium(biases: Array(repeating: 0, count: 8))
    var tracker = SiteTracker(site: site, config: config)
    let sim = SimulationConfig(tags: 8, duration: 90, seed: seed, nlosProbability: 0.3, outlierProbability: 0)
    var sum = 0.0, events = 0.0
    Simulator(site: site, config: sim).generate(into: { e in
        try? tracker.handle(e) { _ in }
        sum += tracker.learnedBias.bias.map(abs).reduce(0, +) / Double(site.anchors.count)
        events += 1
    })
    return sum / events
}

@Suite struct BiasNLOSTests {
    /// Blocked paths are not anchor biases: a blockage's excess learned as a bias would shorten every
    /// range of that anchor, for every tag. On a calibrated site with heavy NLOS the learned biases
    /// stay under 2 cm on average over the run, on seeds 1–4 (0.000–0.006 m). Two mechanisms are
    /// needed, and the test fails without either:
    /// - `biasMaxBlockedProbability` keeps the ranges of pairs that `PairNLOS` holds for blocked out of
    ///   the rounds (without it: 0.13 and 0.16 m on seeds 2 and 4);
    /// - the variance factor tests the biases against the spread the residuals really have, not the
    ///   ranges' σ alone (without it: 0.05, 0.08 and 0.21 m on seeds 1–3).
    @Test func blockedPathsAreNotLearnedAsBiases() {
        for seed: UInt64 in [1, 2, 3, 4] {
            let learned = meanLearnedBias(seed: seed, config: EngineConfig())
            #expect(learned < 0.02, "seed \(seed): learned biases average \(learned) m")
        }
    }
}
