import Testing
import Numerics
@testable import Positioning

/// The bias round's skipped geometry tests: wherever `GeometryFailure` says the test fails again, the
/// test run in full must fail too.
@Suite struct GeometryFailureTests {
    /// `Σ g·gᵀ` over unit gradients from `anchors` at `p`, the smallest eigenvalue and the bookkeeping
    /// of a failure, as `teachBiases` computes them.
    static func test(_ p: Vec3, _ anchors: [Vec3], minShare: Double) -> (passes: Bool, failure: GeometryFailure) {
        var geometry = GeometryMatrix()
        var sensitivity = 0.0, nearest = Double.infinity
        for a in anchors {
            let n = (p - a).norm
            geometry.add((1 / n) * (p - a))
            sensitivity += 1 / n
            nearest = min(nearest, n)
        }
        let threshold = minShare * Double(anchors.count) / 3
        let smallest = TrackerContext.smallestEigenvalue(geometry.matrix, 3)
        let mask: UInt64 = (1 << UInt64(anchors.count)) - 1
        return (smallest >= threshold,
                GeometryFailure(position: p, anchors: mask, sensitivity: sensitivity, nearest: nearest,
                                slack: threshold - smallest, count: anchors.count))
    }

    @Test func aSkippedTestWouldHaveFailed() {
        var rng = SeededRandom(seed: 11)
        var skipped = 0, failedAfterSkip = 0
        for _ in 0..<300 {
            // Anchors high in a hall and a tag near the floor: z is the weak direction, as under a ceiling.
            let anchors = (0..<(5 + Int(rng.nextUniform() * 8))).map { _ in
                Vec3(rng.nextUniform() * 60, rng.nextUniform() * 40, 4 + rng.nextUniform() * 6)
            }
            let p = Vec3(rng.nextUniform() * 60, rng.nextUniform() * 40, rng.nextUniform() * 2)
            let first = Self.test(p, anchors, minShare: 0.3)
            guard !first.passes else { continue }
            let mask = first.failure.anchors
            for step in [0.01, 0.05, 0.2, 1, 3] {
                let q = p + step * Vec3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian())
                guard first.failure.holds(at: q, anchors: mask) else { continue }
                skipped += 1
                if !Self.test(q, anchors, minShare: 0.3).passes { failedAfterSkip += 1 }
                // A changed set of anchors is never skipped.
                #expect(!first.failure.holds(at: q, anchors: mask >> 1))
            }
        }
        #expect(skipped > 100)   // the bound is useful, not only safe
        #expect(failedAfterSkip == skipped)
    }
}
