import Testing
import Numerics
@testable import Positioning

/// A bias round that is due but refused is tried again no sooner than `biasRetryInterval`, not on
/// every line of the tag (each try runs the anchor census and, often, the geometry test).
@Suite struct BiasRetryTests {
    @Test func aRefusedRoundIsRetriedNoSoonerThanTheRetryInterval() {
        let site = Site.demoWarehouse
        var config = EngineConfig()
        config.biasRetryInterval = 0.05
        let context = TrackerContext(site: site, config: config)
        var track = TagTrack(anchorCount: site.anchors.count, time: 0, config: config)
        let d = site.dimensions
        var covariance = [Double](repeating: 0, count: d * d)
        for k in 0..<d { covariance[k * d + k] = 0.01 }
        track.filter = TagFilter(position: Vec3(5, 5, site.tagHeight ?? 1), covariance: covariance, dimensions: d,
                                 velocityStd: 0.1, time: 0)
        var learner = BiasLearner(anchorCount: site.anchors.count, config: config)
        // No anchor has been heard: every try is refused (too few anchors), lines come every 10 ms.
        let ms: Nanoseconds = 1_000_000
        var tries: [Nanoseconds] = []
        for t in stride(from: Nanoseconds(0), through: 200 * ms, by: Int(10 * ms)) {
            let before = track.lastBiasAttempt
            context.teachBiases(&track, time: t, learner: &learner)
            if track.lastBiasAttempt != before { tries.append(t) }
        }
        #expect(tries == [0, 50 * ms, 100 * ms, 150 * ms, 200 * ms])
        #expect(track.lastBiasRound == .min)
    }
}
