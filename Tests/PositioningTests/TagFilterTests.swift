import Testing
import Numerics
@testable import Positioning

@Suite struct TagFilterTests {
    @Test func predictionMovesWithVelocityAndGrowsVariance() {
        var f = TagFilter(position: Vec3(1, 2, 1), covariance: [0.01, 0, 0, 0.01], dimensions: 2,
                          velocityStd: 1, time: 0)
        f.update(residual: 0, gradient: Vec3(0, 0, 0), measurementVariance: 1)
        let before = f.cov(0, 0)
        f.predict(to: 1_000_000_000, accelerationNoise: 1)
        // Velocity zero: position unchanged; variance grows by dt²·σv² + q·dt³/3 = 1 + 1/3.
        #expect(abs(f.cov(0, 0) - (before + 1 + 1.0 / 3)) < 1e-12)
        #expect(f.cov(2, 2) == 0, "z stays pinned on a 2-D site")
        #expect(f.position == Vec3(1, 2, 1))
    }

    @Test func rangeUpdatePullsTowardTheMeasurement() {
        var f = TagFilter(position: Vec3(0, 0, 0), covariance: [1, 0, 0, 1], dimensions: 2, velocityStd: 1, time: 0)
        let o = Observation(kind: .range, anchor: 0, anchorPosition: Vec3(10, 0, 0), value: 9, std: 0.1, time: 0)
        let inn = f.innovation(o)!
        #expect(abs(inn.residual - -1) < 1e-12)
        f.update(residual: inn.residual, gradient: inn.gradient, measurementVariance: 0.01)
        // Gain P/(P+R) = 1/1.01 along x.
        #expect(abs(f.position.x - 1 / 1.01) < 1e-9)
        #expect(f.cov(0, 0) < 0.02)
        #expect(abs(f.cov(0, 1) - f.cov(1, 0)) < 1e-15)
    }

    @Test func holdStillZeroesVelocity() {
        var f = TagFilter(position: .zero, covariance: [1, 0, 0, 1], dimensions: 2, velocityStd: 1, time: 0)
        f.predict(to: 500_000_000, accelerationNoise: 1)
        f.update(residual: 0.5, gradient: Vec3(1, 0, 0), measurementVariance: 0.01)
        f.holdStill(velocityStd: 0.01)
        #expect(f.velocity == .zero)
        #expect(f.cov(0, 3) == 0)
        #expect(abs(f.cov(3, 3) - 1e-4) < 1e-15)
    }
}

@Suite struct EigenvalueTests {
    @Test func closedFormSmallestEigenvalueMatchesLAPACK() {
        var rng = SeededRandom(seed: 9)
        for d in [2, 3] {
            for _ in 0..<50 {
                // A random symmetric PSD matrix Σ g gᵀ, as the bias learner builds it.
                var m = InlineArray<9, Double>(repeating: 0)
                var flat = [Double](repeating: 0, count: d * d)
                for _ in 0..<5 {
                    let g = (0..<3).map { _ in rng.nextGaussian() }
                    for i in 0..<d { for j in 0..<d { m[i * 3 + j] += g[i] * g[j]; flat[i * d + j] += g[i] * g[j] } }
                }
                let reference = LAPACK.symmetricEigen(flat, n: d)!.values[0]
                // 1e-9 relative: the trigonometric form loses a few digits near repeated roots.
                #expect(abs(TrackerContext.smallestEigenvalue(m, d) - reference) < 1e-9 * max(1, abs(reference)))
            }
        }
    }
}

@Suite struct SmallInverseTests {
    @Test func closedFormInverseMatchesLAPACK() {
        var rng = SeededRandom(seed: 4)
        for d in [2, 3] {
            for _ in 0..<30 {
                var m = InlineArray<9, Double>(repeating: 0)
                var flat = [Double](repeating: 0, count: d * d)
                for _ in 0..<6 {
                    let g = (0..<3).map { _ in rng.nextGaussian() }
                    for i in 0..<d { for j in 0..<d { m[i * 3 + j] += g[i] * g[j]; flat[i * d + j] += g[i] * g[j] } }
                }
                let inv = BiasLearner.inverse(m, d)!
                let reference = LAPACK.inverseSPD(flat, n: d)!
                // Well-conditioned random SPD matrices: agreement to 1e-9 relative.
                for i in 0..<d { for j in 0..<d {
                    #expect(abs(inv[i * 3 + j] - reference[i * d + j]) < 1e-9 * max(1, abs(reference[i * d + j])))
                } }
            }
        }
    }
}
