internal import Numerics

/// Online estimation of each anchor's range bias from the residuals of well-placed tags.
///
/// Real ranging is biased (antenna delay, cables, walls): an uncalibrated site sees every range of an
/// anchor longer or shorter by centimetres to decimetres. With redundant anchors, a bias shows up as a
/// residual that no position of the tag can explain. Each round of one tag gives, for the anchors it
/// heard, raw residuals `y = d − |p̂ − a|` (measured distance minus the distance from the estimated
/// position). Their model is `y = b − H·δ + noise`, with `b` the biases, `δ` the position error, and
/// `H` the range gradients. Projecting out the span of `H` removes the position error exactly to first
/// order: `P·y = P·b + P·noise`, with `P = I − H(HᵀWH)⁻¹HᵀW`. The learner accumulates these equations
/// in information form (`M += WP`, `v += WP·y`, with slow forgetting) and solves `(M + λI)·b = v`
/// by Cholesky. This is the recursive form of a bundle adjustment over the biases. It converges at the
/// rate of the information the geometry gives, not at the slow pace of a gradient learner, and it
/// cannot mistake a shifted tag for a pattern of biases. A Huber weight on the projected residual keeps
/// NLOS bursts and outliers from teaching it.
public struct BiasLearner: Sendable, Equatable {
    /// Bias per anchor and technology, metres (index `anchor * 2 + technology`).
    /// The estimate per anchor and technology, metres (index `anchor * 2 + technology`).
    public private(set) var estimate: [Double]
    /// The bias applied to ranges: the estimate where it is significant (beyond `significance` of its
    /// standard error), zero elsewhere, so that anchors without a bias are not given a noisy one.
    public private(set) var bias: [Double]
    /// Rounds that taught each slot.
    public private(set) var samples: [Int]
    public let enabled: Bool
    let n: Int
    var info: [Double]
    var vec: [Double]
    var roundsSinceSolve = 0
    let forgetting: Double
    let clipSigmas: Double
    let maxBias: Double
    /// Prior information on each bias (1/m²): a weak pull toward zero for slots with little data.
    let prior = 1.0 / (0.5 * 0.5)
    /// A learned bias is applied once it exceeds this many standard errors.
    let significance = 3.0

    init(anchorCount: Int, config: EngineConfig) {
        n = anchorCount * 2
        bias = Array(repeating: 0, count: n)
        estimate = Array(repeating: 0, count: n)
        samples = Array(repeating: 0, count: n)
        info = Array(repeating: 0, count: n * n)
        vec = Array(repeating: 0, count: n)
        enabled = config.learnBias
        forgetting = 1 - 1 / Double(max(config.biasWindow, 1))
        clipSigmas = config.biasClipSigmas
        maxBias = config.maxLearnedBias
    }

    @inlinable static func slot(anchor: Int, technology: Technology) -> Int {
        anchor * 2 + (technology == .uwb ? 0 : 1)
    }

    /// The learned bias of one anchor and technology, metres.
    public func bias(anchor: Int, technology: Technology) -> Double {
        bias[Self.slot(anchor: anchor, technology: technology)]
    }

    /// One round of a tag's residuals.
    struct Row {
        var slot: Int
        /// Raw residual `d − |p̂ − a|`, metres (no bias removed).
        var y: Double
        /// Range gradient at the estimated position (z zeroed on 2-D sites).
        var g: Vec3
        /// Weight 1/σ², 1/m².
        var w: Double
    }

    /// Absorbs one round (at least `dimensions + 2` rows) and re-solves every few rounds.
    mutating func learn(_ rows: [Row], dimensions d: Int) {
        guard enabled, rows.count >= d + 2 else { return }
        var w = rows.map(\.w)
        // Two passes: the projected residual against the current biases sets Huber weights.
        var projector: [Double] = []
        for pass in 0..<2 {
            projector = weightedProjector(rows, w, d)
            guard pass == 0 else { break }
            let k = rows.count
            for i in 0..<k {
                // Row i of P·(y − b): projector holds W·P, so divide by wᵢ.
                var e = 0.0
                for j in 0..<k { e += projector[i * k + j] * (rows[j].y - estimate[rows[j].slot]) }
                e /= w[i]
                let z = abs(e) * rows[i].w.squareRoot()
                if z > clipSigmas { w[i] = rows[i].w * clipSigmas / z }
            }
        }
        let k = rows.count
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

    /// `W − W·H·(HᵀWH)⁻¹·Hᵀ·W` for the rows (k × k, row-major), which equals `Pᵀ·W·P`.
    private func weightedProjector(_ rows: [Row], _ w: [Double], _ d: Int) -> [Double] {
        let k = rows.count
        // S = HᵀWH (d × d, d ≤ 3), inverted in closed form (adjugate over determinant).
        var s = InlineArray<9, Double>(repeating: 0)
        for (r, wr) in zip(rows, w) { for a in 0..<d { for b in 0..<d { s[a * 3 + b] += wr * r.g[a] * r.g[b] } } }
        var out = [Double](repeating: 0, count: k * k)
        for i in 0..<k { out[i * k + i] = w[i] }
        guard let inv = Self.inverse(s, d) else { return out }
        // out −= (WH)·S⁻¹·(WH)ᵀ, row by row: uᵢ = S⁻¹·wᵢgᵢ, then out[i][j] −= wⱼgⱼ·uᵢ.
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

    /// The inverse of a symmetric 2×2 or 3×3 matrix (stored 3×3 row-major), or nil when singular.
    static func inverse(_ m: InlineArray<9, Double>, _ d: Int) -> InlineArray<9, Double>? {
        var r = InlineArray<9, Double>(repeating: 0)
        if d == 2 {
            let det = m[0] * m[4] - m[1] * m[3]
            guard abs(det) > 1e-12 else { return nil }
            r[0] = m[4] / det; r[1] = -m[1] / det; r[3] = -m[3] / det; r[4] = m[0] / det
            return r
        }
        let c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6]
        let det = m[0] * c0 + m[1] * c1 + m[2] * c2
        guard abs(det) > 1e-12 else { return nil }
        r[0] = c0 / det; r[3] = c1 / det; r[6] = c2 / det
        r[1] = (m[2] * m[7] - m[1] * m[8]) / det; r[4] = (m[0] * m[8] - m[2] * m[6]) / det
        r[7] = (m[1] * m[6] - m[0] * m[7]) / det
        r[2] = (m[1] * m[5] - m[2] * m[4]) / det; r[5] = (m[2] * m[3] - m[0] * m[5]) / det
        r[8] = (m[0] * m[4] - m[1] * m[3]) / det
        return r
    }

    /// Re-solves the biases from the accumulated information, and applies forgetting.
    mutating func solve() {
        roundsSinceSolve = 0
        var a = info
        var b = vec
        for i in 0..<n { a[i * n + i] += prior }
        guard let x = Cholesky.solve(a, b, n: n) else { return }
        for i in 0..<n {
            estimate[i] = max(-maxBias, min(maxBias, x[i]))
            // Standard error from the diagonal of the information (an optimistic approximation, so a
            // generous threshold).
            let stdError = 1 / a[i * n + i].squareRoot()
            bias[i] = abs(estimate[i]) > significance * stdError ? estimate[i] : 0
        }
        let f = pow(forgetting, 8)
        for i in info.indices { info[i] *= f }
        for i in vec.indices { vec[i] *= f }
        b.removeAll()
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
