import Testing
import Numerics
import Positioning
@testable import Survey

/// Range bias and noise estimation on simulated anchors with a known bias.
struct BiasTests {
    /// The demo warehouse with U5 biased by +0.25 m (σ 0.08 m) and C2 by −0.15 m.
    static func biasedSite() -> Site {
        var site = Site.demoWarehouse
        site.anchors[site.anchorIndex["U5"]!].rangeBias = 0.25
        site.anchors[site.anchorIndex["C2"]!].rangeBias = -0.15
        return site
    }

    static func simulate(_ site: Site, nlos: Double) -> (rangings: [Ranging], truth: [TruthSample]) {
        var config = SimulationConfig(tags: 4, duration: 90, seed: 3, nlosProbability: nlos)
        config.outlierProbability = nlos > 0 ? 0.005 : 0
        let (events, truth) = Simulator(site: site, config: config).run()
        return (events.compactMap { if case .ranging(let r) = $0 { r } else { nil } }, truth)
    }

    @Test func recoversBiasAndNoiseOfSimulatedAnchor() throws {
        let site = Self.biasedSite()
        let (rangings, truth) = Self.simulate(site, nlos: 0)
        let residuals = BiasEstimation.residuals(site: site, rangings: rangings, truth: .track(truth))
        let biases = BiasEstimation.estimate(site: site, residuals: residuals)
        let u5 = try #require(biases.first { $0.anchor == "U5" })
        // Thousands of ranges with σ 0.08 m: the mean is good to a few millimetres; the truth is
        // interpolated between 10 Hz samples, which adds millimetres at the waypoints' corners.
        #expect(abs(u5.bias - 0.25) < 0.01)
        #expect(abs(u5.std - 0.08) < 0.01)
        let c2 = try #require(biases.first { $0.anchor == "C2" })
        #expect(abs(c2.bias + 0.15) < 0.03)
        #expect(abs(c2.std - 0.4) < 0.03)
        let u1 = try #require(biases.first { $0.anchor == "U1" })
        #expect(abs(u1.bias) < 0.01)

        let (updated, names) = BiasEstimation.apply(biases, to: Site.demoWarehouse)
        #expect(names.count == 11)
        #expect(abs(updated.anchor("U5")!.rangeBias - 0.25) < 0.01)
        #expect(abs(updated.anchor("U5")!.rangeStd! - 0.08) < 0.01)
    }

    /// NLOS bursts (10 % of pair episodes, +0.2…1.5 m) and outliers barely move the robust estimate,
    /// while the plain mean is pulled up.
    @Test func robustAgainstNLOS() throws {
        let site = Self.biasedSite()
        let (rangings, truth) = Self.simulate(site, nlos: 0.1)
        let biases = BiasEstimation.estimate(site: site, residuals:
            BiasEstimation.residuals(site: site, rangings: rangings, truth: .track(truth)))
        let u5 = try #require(biases.first { $0.anchor == "U5" })
        print("U5 with NLOS: bias \(u5.bias), mean \(u5.mean), median \(u5.median), std \(u5.std)")
        #expect(abs(u5.bias - 0.25) < 0.04)
        #expect(u5.mean > u5.bias)
    }

    /// A tag standing at one known point (`--at`).
    @Test func fixedPointTruth() throws {
        let site = Self.biasedSite()
        let p = Vec3(15, 10, 1.2)
        var rng = SeededRandom(seed: 5)
        var rangings: [Ranging] = []
        for k in 0..<200 {
            for a in site.anchors {
                let d = (p - a.position).norm + a.rangeBias + 0.1 * rng.nextGaussian()
                rangings.append(Ranging(site: site.id, anchor: a.id, tag: "T", distance: d, time: Int64(k)))
            }
        }
        let biases = BiasEstimation.estimate(site: site, residuals:
            BiasEstimation.residuals(site: site, rangings: rangings, truth: .fixed(p)))
        // 200 ranges with σ 0.1 m: the standard error is 7 mm; 3 standard errors.
        #expect(abs(biases.first { $0.anchor == "U5" }!.bias - 0.25) < 0.021)
        #expect(abs(biases.first { $0.anchor == "U1" }!.bias) < 0.021)
    }
}
