import Testing
import Numerics
@testable import Positioning

@Suite struct MultilaterationRefusalTests {
    /// `refusal` is what lets the tracker skip its multilateration starts: it must say no exactly when
    /// `solve` throws before iterating (too few observations, anchors that do not span), from any start.
    @Test func refusalIsExactlySolvesEarlyRefusal() {
        var rng = SeededRandom(seed: 12)
        // Six anchors, three of them on one line (degenerate subsets exist), one repeated.
        let anchors = [Vec3(0, 0, 3), Vec3(10, 0, 3), Vec3(20, 0, 3), Vec3(10, 8, 6), Vec3(0, 8, 3), Vec3(20, 8, 1)]
        for d in [2, 3] {
            for _ in 0..<300 {
                let count = Int(rng.next() % 7)
                let picked = (0..<count).map { _ in Int(rng.next() % UInt64(anchors.count)) }
                let truth = Vec3(rng.nextUniform(1, 19), rng.nextUniform(1, 7), 1)
                let obs = picked.map { a in
                    Observation(kind: .range, anchor: a, anchorPosition: anchors[a],
                                value: (truth - anchors[a]).norm + 0.05 * rng.nextGaussian(), std: 0.1, time: 0)
                }
                let refusal = Multilateration.refusal(obs, dimensions: d)
                for start in [nil, Vec3(10, 4, 1)] as [Vec3?] {
                    var thrown: MultilaterationError?
                    do { _ = try Multilateration.solve(obs, dimensions: d, height: 1, initial: start) } catch { thrown = error }
                    // A refusal is what `solve` throws, from every start; without one, `solve` iterates
                    // (and may still fail, for its own reasons after iterating).
                    if let refusal { #expect(thrown == refusal, "\(picked) in \(d)-D") }
                }
            }
        }
    }
}
