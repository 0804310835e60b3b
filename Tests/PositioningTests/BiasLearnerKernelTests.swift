import Testing
import Foundation
import Numerics
@testable import Positioning

/// The bias learner's round and solve as they were before they ran through pointers (array code), the
/// reference the pointer code must match bit for bit.
private struct ReferenceLearner {
    var estimate: [Double], bias: [Double], samples: [Int], info: [Double], vec: [Double]
    var roundsSinceSolve = 0
    var weightedSquares = 0.0, residualDOF = 0.0
    let n: Int, forgetting: Double, clipSigmas: Double, maxBias: Double
    let prior = 1.0 / (0.5 * 0.5), significance = 3.0, omnibusZ = 3.09

    init(_ l: BiasLearner) {
        estimate = l.estimate; bias = l.bias; samples = l.samples; info = l.info; vec = l.vec
        n = l.n; forgetting = l.forgetting; clipSigmas = l.clipSigmas; maxBias = l.maxBias
    }

    mutating func learn(_ rows: [BiasLearner.Row], dimensions d: Int) {
        guard rows.count >= d + 2 else { return }
        var w = rows.map(\.w)
        var projector: [Double] = []
        for pass in 0..<2 {
            projector = weightedProjector(rows, w, d)
            guard pass == 0 else { break }
            let k = rows.count
            for i in 0..<k {
                var e = 0.0
                for j in 0..<k { e += projector[i * k + j] * (rows[j].y - estimate[rows[j].slot]) }
                e /= w[i]
                let z = abs(e) * rows[i].w.squareRoot()
                if z > clipSigmas { w[i] = rows[i].w * clipSigmas / z }
            }
        }
        let k = rows.count
        var squares = 0.0
        for i in 0..<k {
            var s = 0.0
            for j in 0..<k { s += projector[i * k + j] * rows[j].y }
            squares += rows[i].y * s
        }
        weightedSquares += squares
        residualDOF += Double(k - d)
        for i in 0..<k {
            let si = rows[i].slot
            samples[si] += 1
            for j in 0..<k {
                info[si * n + rows[j].slot] += projector[i * k + j]
                vec[si] += projector[i * k + j] * rows[j].y
            }
        }
        roundsSinceSolve += 1
        if roundsSinceSolve >= 8 { solve() }
    }

    func weightedProjector(_ rows: [BiasLearner.Row], _ w: [Double], _ d: Int) -> [Double] {
        let k = rows.count
        var s = InlineArray<9, Double>(repeating: 0)
        for (r, wr) in zip(rows, w) { for a in 0..<d { for b in 0..<d { s[a * 3 + b] += wr * r.g[a] * r.g[b] } } }
        var out = [Double](repeating: 0, count: k * k)
        for i in 0..<k { out[i * k + i] = w[i] }
        guard let inv = BiasLearner.inverse(s, d) else { return out }
        for i in 0..<k {
            var u = Vec3.zero
            for a in 0..<d { var v = 0.0; for b in 0..<d { v += inv[a * 3 + b] * rows[i].g[b] }; u[a] = w[i] * v }
            for j in 0..<k {
                var hx = 0.0
                for a in 0..<d { hx += rows[j].g[a] * u[a] }
                out[i * k + j] -= w[j] * hx
            }
        }
        return out
    }

    mutating func solve() {
        roundsSinceSolve = 0
        var a = info
        for i in 0..<n { a[i * n + i] += prior }
        guard let x = referenceCholesky(a, vec, n: n) else { return }
        var statistic = 0.0, taught = 0
        for i in 0..<n {
            statistic += x[i] * vec[i]
            if samples[i] > 0 { taught += 1 }
        }
        let spareDOF = residualDOF - Double(taught)
        let factor = spareDOF > 20 ? max(1, (weightedSquares - statistic) / spareDOF) : 1
        let anyBias = taught > 0 && statistic > factor * BiasLearner.chiSquareQuantile(dof: taught, z: omnibusZ)
        for i in 0..<n {
            estimate[i] = max(-maxBias, min(maxBias, x[i]))
            let stdError = (factor / a[i * n + i]).squareRoot()
            bias[i] = anyBias && abs(estimate[i]) > significance * stdError ? estimate[i] : 0
        }
        let f = pow(forgetting, 8)
        for i in info.indices { info[i] *= f }
        for i in vec.indices { vec[i] *= f }
        weightedSquares *= f
        residualDOF *= f
    }
}

/// `Cholesky.solve` as indexed array loops.
private func referenceCholesky(_ a: [Double], _ b: [Double], n: Int) -> [Double]? {
    var l = [Double](repeating: 0, count: n * n)
    for i in 0..<n {
        for j in 0...i {
            var s = a[i * n + j]
            for k in 0..<j { s -= l[i * n + k] * l[j * n + k] }
            if i == j {
                guard s > 0, s.isFinite else { return nil }
                l[i * n + i] = s.squareRoot()
            } else {
                l[i * n + j] = s / l[j * n + j]
            }
        }
    }
    var y = b
    for i in 0..<n {
        var s = y[i]
        for k in 0..<i { s -= l[i * n + k] * y[k] }
        y[i] = s / l[i * n + i]
    }
    for i in stride(from: n - 1, through: 0, by: -1) {
        var s = y[i]
        for k in (i + 1)..<n { s -= l[k * n + i] * y[k] }
        y[i] = s / l[i * n + i]
    }
    return y
}

private func same(_ a: [Double], _ b: [Double]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern }
}

@Suite struct BiasLearnerKernelTests {
    /// Random rounds (2-D and 3-D, 4 to 16 anchors, biased ranges and outliers that the Huber weights
    /// clip) through the learner and through the array code: every accumulated number, estimate and
    /// applied bias is the same bit for bit, solves included (every 8th round).
    @Test func pointerRoundsMatchTheArrayCodeBitForBit() {
        var rng = SeededRandom(seed: 77)
        for d in [2, 3] {
            let anchors = 16
            var learner = BiasLearner(anchorCount: anchors, config: EngineConfig())
            var reference = ReferenceLearner(learner)
            let trueBias = (0..<anchors).map { _ in rng.nextUniform(-0.3, 0.3) }
            for round in 0..<200 {
                let k = 4 + Int(rng.next() % 13)
                let chosen = Array((0..<anchors).shuffled(using: &rng).prefix(k))
                let rows = chosen.map { a -> BiasLearner.Row in
                    var g = Vec3(rng.nextGaussian(), rng.nextGaussian(), d == 3 ? rng.nextGaussian() : 0)
                    g = (1 / g.norm) * g
                    let outlier = rng.nextBernoulli(0.05) ? rng.nextUniform(0.5, 3) : 0
                    return BiasLearner.Row(slot: BiasLearner.slot(anchor: a, technology: .uwb),
                                           y: trueBias[a] + rng.nextGaussian(mean: 0, std: 0.1) + outlier, g: g,
                                           w: 1 / (0.1 * 0.1))
                }
                learner.learn(rows, dimensions: d)
                reference.learn(rows, dimensions: d)
                #expect(same(learner.info, reference.info) && same(learner.vec, reference.vec)
                        && learner.samples == reference.samples, "d \(d) round \(round): accumulation")
                #expect(same(learner.estimate, reference.estimate) && same(learner.bias, reference.bias),
                        "d \(d) round \(round): solve")
            }
        }
    }

    /// The pointer Cholesky against the indexed loops on random SPD systems of the learner's sizes.
    @Test func choleskyMatchesTheIndexedLoopsBitForBit() {
        var rng = SeededRandom(seed: 5)
        for n in [1, 2, 7, 32] {
            var a = [Double](repeating: 0, count: n * n)
            for _ in 0..<(n + 3) {
                let g = (0..<n).map { _ in rng.nextGaussian() }
                for i in 0..<n { for j in 0..<n { a[i * n + j] += g[i] * g[j] } }
            }
            let b = (0..<n).map { _ in rng.nextGaussian() }
            #expect(same(Cholesky.solve(a, b, n: n)!, referenceCholesky(a, b, n: n)!))
        }
        #expect(Cholesky.solve([1, 2, 2, 1], [1, 1], n: 2) == nil, "indefinite")
    }
}
