internal import Numerics

/// A bearing's correction by the learned angle offsets of its anchor (`BiasLearner.angleCorrection`).
public struct AngleCorrection: Sendable, Equatable {
    /// Offsets subtracted from the measured azimuth and elevation, radians.
    public var azimuth = 0.0, elevation = 0.0
    /// Variances added to the bearing's σ², rad².
    public var azimuthVariance = 0.0, elevationVariance = 0.0
    public init() {}
}

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
///
/// Which biases are applied is decided in two steps, as in Fisher's protected test: an omnibus χ² test
/// of "no anchor has a bias" on the whole estimate (its squared Mahalanobis norm under the accumulated
/// information, which counts the trade-offs between slots), and only when that is rejected, a test of
/// each slot against its standard error. The per-slot standard error comes from the diagonal of the
/// information and ignores those trade-offs (in 3-D, a bias common to many anchors against the tag's
/// height), so on its own it fires on noise; behind the omnibus test it cannot on a calibrated site,
/// and on a biased one it lets the real biases through as early as before.
///
/// Both tests are made against the spread the residuals really have: the information assumes the
/// ranges' stated σ, and the variance factor (the weighted residual sum of squares at the solution
/// over its degrees of freedom, never below 1) scales it. Where many paths are blocked, the residuals
/// are far noisier than σ, and without the factor the blockages that the Huber weights only bound
/// passed the tests as biases of 5–20 cm on a calibrated site.
public struct BiasLearner: Sendable, Equatable {
    /// Bias per anchor and technology, metres (index `anchor * 2 + technology`).
    /// The estimate per anchor and technology, metres (index `anchor * 2 + technology`).
    public private(set) var estimate: [Double]
    /// The bias applied to ranges: the estimate where it is significant (beyond `significance` of its
    /// standard error, once the omnibus test says some anchor has a bias), zero elsewhere, so that
    /// anchors without a bias are not given a noisy one.
    public private(set) var bias: [Double]
    /// The covariance of `estimate` (m², n × n row-major, n = 2 × anchors), the inverse of the
    /// information and prior times the variance factor, from the last solve that applied some bias;
    /// empty while none is applied. Its off-diagonal terms carry the trade-offs between slots that a
    /// standard error alone does not show (see `TrackerContext.biasUncertainty`).
    public private(set) var covariance: [Double] = []
    /// Rounds that taught each slot.
    public private(set) var samples: [Int]
    public let enabled: Bool
    let n: Int
    var info: [Double]
    var vec: [Double]
    var roundsSinceSolve = 0
    /// `Σ yᵀ·(W·P)·y` over the rounds (forgotten as `info`): with `vec` and the solution, the weighted
    /// residual sum of squares, for the variance factor.
    var weightedSquares = 0.0
    /// Degrees of freedom of those residuals: rows minus position coordinates, over the rounds.
    var residualDOF = 0.0
    let forgetting: Double
    let clipSigmas: Double
    let maxBias: Double
    /// Prior information on each bias (1/m²): σ 0.5 m, a weak pull toward zero for slots with little
    /// data.
    let prior = 1.0 / (0.5 * 0.5)
    /// Prior information on each angle offset (1/rad²): σ 0.1 rad (about 6°), the order of a locator's
    /// mounting and antenna-array error. It is also the offset's uncertainty before any round.
    let anglePrior = 1.0 / (0.1 * 0.1)
    /// Per slot, the variance of the estimate from the diagonal of the information and prior (times
    /// the variance factor) at the last solve; the prior's before the first.
    public private(set) var variance: [Double]
    /// A learned bias is applied once it exceeds this many standard errors.
    let significance = 3.0
    /// The omnibus test's threshold, as a standard-normal quantile: 3.09 is a false alarm in 1,000 solves.
    let omnibusZ = 3.09
    /// The biases are solved again once every this many rounds (and the information forgotten by as
    /// many rounds' worth).
    static let roundsPerSolve = 8
    /// `inverse` refuses a matrix whose determinant is this small (the units of the matrix cubed, or
    /// squared in 2-D): singular for the geometry of a tag's anchors.
    static let singularDeterminant = 1e-12

    /// The upper quantile of χ² with `dof` degrees of freedom at the standard-normal quantile `z`, by
    /// the Wilson–Hilferty cube approximation (within about 1 % from 3 degrees of freedom on).
    static func chiSquareQuantile(dof: Int, z: Double) -> Double {
        let k = Double(dof), c = 2 / (9 * k)
        let t = 1 - c + z * c.squareRoot()
        return k * t * t * t
    }

    /// The first angle slot when the site has `aoa` anchors (see `angleSlot`), nil otherwise.
    public let angleBase: Int?

    /// - Parameter angleSlots: also learn a persistent azimuth and elevation offset (radians) per
    ///   anchor, in slots after the range slots, from rounds of angle residuals (`teachAngleBiases`).
    ///   Their rows are weighed by 1/σ² like the ranges', so the tests and the variance factor are
    ///   unitless and shared; a site without `aoa` anchors has no angle slots.
    init(anchorCount: Int, config: EngineConfig, angleSlots: Bool = false) {
        angleBase = angleSlots ? anchorCount * 2 : nil
        n = anchorCount * (angleSlots ? 4 : 2)
        let rangeSlots = anchorCount * 2, angleVariance = 1 / anglePrior, rangeVariance = 1 / prior
        variance = (0..<n).map { angleSlots && $0 >= rangeSlots ? angleVariance : rangeVariance }
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

    /// The slot of anchor `a`'s azimuth (or elevation) offset; only on a learner with angle slots.
    @inline(__always) func angleSlot(anchor a: Int, elevation: Bool) -> Int {
        angleBase! + a * 2 + (elevation ? 1 : 0)
    }

    /// What a bearing of anchor `a` is corrected by: the applied azimuth and elevation offsets
    /// (radians, measured = true + offset) and the variance (rad²) the bearing's σ² is increased by.
    /// Where an offset is applied, that is its estimate's variance; where none is, the offset left in
    /// the bearings, which averaging does not remove: the estimate's square plus its variance (before
    /// any round, the prior's: σ 0.1 rad).
    public func angleCorrection(anchor a: Int) -> AngleCorrection {
        guard angleBase != nil else { return AngleCorrection() }
        func part(_ s: Int) -> (offset: Double, variance: Double) {
            bias[s] != 0 && !covariance.isEmpty ? (bias[s], covariance[s * n + s])
                : (bias[s], estimate[s] * estimate[s] + variance[s])
        }
        var c = AngleCorrection()
        (c.azimuth, c.azimuthVariance) = part(angleSlot(anchor: a, elevation: false))
        (c.elevation, c.elevationVariance) = part(angleSlot(anchor: a, elevation: true))
        return c
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
        rows.withUnsafeBufferPointer { learn($0, dimensions: d) }
    }

    /// `learn(_:dimensions:)` on rows in place. The scratch (weights, residuals, projector) is a
    /// temporary allocation and every loop runs through pointers; the arithmetic, and its order, is
    /// that of the reference array code (`BiasLearnerTests` compares the two bit for bit).
    mutating func learn(_ rows: UnsafeBufferPointer<Row>, dimensions d: Int) {
        guard enabled, rows.count >= d + 2 else { return }
        let k = rows.count, n = n
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * k + k * k) { scratch in
            let w = scratch.baseAddress!, residual = w + k, projector = residual + k
            for i in 0..<k { w[i] = rows[i].w }
            // Two passes: the projected residual against the current biases sets Huber weights.
            estimate.withUnsafeBufferPointer { estimate in
                for j in 0..<k { residual[j] = rows[j].y - estimate[rows[j].slot] }
            }
            Self.weightedProjector(rows, w, d, into: projector)
            for i in 0..<k {
                // Row i of P·(y − b): projector holds W·P, so divide by wᵢ.
                var e = 0.0
                for j in 0..<k { e += projector[i * k + j] * residual[j] }
                e /= w[i]
                let z = abs(e) * rows[i].w.squareRoot()
                if z > clipSigmas { w[i] = rows[i].w * clipSigmas / z }
            }
            Self.weightedProjector(rows, w, d, into: projector)
            // One pass: row i of W·P·y goes to its slot's `vec` and, times yᵢ, to the sum of squares.
            var squares = 0.0
            samples.withUnsafeMutableBufferPointer { samples in
                info.withUnsafeMutableBufferPointer { info in
                    vec.withUnsafeMutableBufferPointer { vec in
                        for i in 0..<k {
                            let si = rows[i].slot
                            samples[si] += 1
                            let row = info.baseAddress! + si * n
                            var v = vec[si], s = 0.0
                            for j in 0..<k {
                                row[rows[j].slot] += projector[i * k + j]
                                let py = projector[i * k + j] * rows[j].y
                                v += py
                                s += py
                            }
                            vec[si] = v
                            squares += rows[i].y * s
                        }
                    }
                }
            }
            weightedSquares += squares
            residualDOF += Double(k - d)
        }
        roundsSinceSolve += 1
        if roundsSinceSolve >= Self.roundsPerSolve { solve() }
    }

    /// `W − W·H·(HᵀWH)⁻¹·Hᵀ·W` for the rows (k × k, row-major, written to `out`), which equals `Pᵀ·W·P`.
    private static func weightedProjector(_ rows: UnsafeBufferPointer<Row>, _ w: UnsafePointer<Double>, _ d: Int,
                                          into out: UnsafeMutablePointer<Double>) {
        let k = rows.count
        // S = HᵀWH (d × d, d ≤ 3), inverted in closed form (adjugate over determinant).
        var s = InlineArray<9, Double>(repeating: 0)
        for r in 0..<k {
            let wr = w[r], g = rows[r].g
            for a in 0..<d { for b in 0..<d { s[a * 3 + b] += wr * g[a] * g[b] } }
        }
        out.update(repeating: 0, count: k * k)
        for i in 0..<k { out[i * k + i] = w[i] }
        guard let inv = Self.inverse(s, d) else { return }
        // out −= (WH)·S⁻¹·(WH)ᵀ, row by row: uᵢ = S⁻¹·wᵢgᵢ, then out[i][j] −= wⱼgⱼ·uᵢ.
        for i in 0..<k {
            var u = Vec3.zero
            let gi = rows[i].g
            for a in 0..<d { var v = 0.0; for b in 0..<d { v += inv[a * 3 + b] * gi[b] }; u[a] = w[i] * v }
            let row = out + i * k
            if d == 3 {
                for j in 0..<k {
                    let gj = rows[j].g
                    var hx = 0.0
                    hx += gj.x * u.x; hx += gj.y * u.y; hx += gj.z * u.z
                    row[j] -= w[j] * hx
                }
            } else {
                for j in 0..<k {
                    let gj = rows[j].g
                    var hx = 0.0
                    for a in 0..<d { hx += gj[a] * u[a] }
                    row[j] -= w[j] * hx
                }
            }
        }
    }

    /// The inverse of a symmetric 2×2 or 3×3 matrix (stored 3×3 row-major), or nil when singular.
    static func inverse(_ m: InlineArray<9, Double>, _ d: Int) -> InlineArray<9, Double>? {
        var r = InlineArray<9, Double>(repeating: 0)
        if d == 2 {
            let det = m[0] * m[4] - m[1] * m[3]
            guard abs(det) > singularDeterminant else { return nil }
            r[0] = m[4] / det; r[1] = -m[1] / det; r[3] = -m[3] / det; r[4] = m[0] / det
            return r
        }
        let c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6]
        let det = m[0] * c0 + m[1] * c1 + m[2] * c2
        guard abs(det) > singularDeterminant else { return nil }
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
        for i in 0..<n { a[i * n + i] += angleBase.map { i >= $0 } ?? false ? anglePrior : prior }
        guard let x = Cholesky.solve(a, vec, n: n) else { return }
        // The omnibus test first: is there any bias at all? Under "no anchor has a bias", v has
        // covariance `info` and vᵀ·info⁺·v is χ² with rank(info) degrees of freedom. The statistic used,
        // xᵀ·v = vᵀ·(info + prior)⁻¹·v, is a little smaller, and the degrees of freedom counted (the
        // slots that were ever taught) at least that rank: both err toward "no bias".
        var statistic = 0.0, taught = 0
        for i in 0..<n {
            statistic += x[i] * vec[i]
            if samples[i] > 0 { taught += 1 }
        }
        // The variance factor: the residuals' weighted sum of squares at the solution over its degrees
        // of freedom, 1 when the ranges' σ is right. Where many paths are blocked it is larger, and
        // the tests below are made against the spread the residuals really have (never a smaller one).
        let spareDOF = residualDOF - Double(taught)
        let factor = spareDOF > 20 ? max(1, (weightedSquares - statistic) / spareDOF) : 1
        let anyBias = taught > 0 && statistic > factor * Self.chiSquareQuantile(dof: taught, z: omnibusZ)
        for i in 0..<n {
            estimate[i] = max(-maxBias, min(maxBias, x[i]))
            // Standard error from the diagonal of the information (an optimistic approximation, so a
            // generous threshold).
            variance[i] = factor / a[i * n + i]
            let stdError = variance[i].squareRoot()
            bias[i] = anyBias && abs(estimate[i]) > significance * stdError ? estimate[i] : 0
        }
        // The full inverse only where it is used: for the positions that applied biases correct.
        covariance = anyBias && bias.contains(where: { $0 != 0 })
            ? (LAPACK.inverseSPD(a, n: n)?.map { factor * $0 } ?? []) : []
        let f = pow(forgetting, Double(Self.roundsPerSolve))
        info.withUnsafeMutableBufferPointer { info in for i in info.indices { info[i] *= f } }
        vec.withUnsafeMutableBufferPointer { vec in for i in vec.indices { vec[i] *= f } }
        weightedSquares *= f
        residualDOF *= f
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BiasLearner {
    /// Takes the learned state of a snapshot, which the caller checked fits (`slots == n`); here,
    /// beside the properties whose setters are private.
    mutating func load(_ s: LearnerSnapshot) {
        estimate = s.estimate; bias = s.bias; covariance = s.covariance; samples = s.samples
        info = s.info; vec = s.vec; variance = s.variance
        roundsSinceSolve = s.roundsSinceSolve; weightedSquares = s.weightedSquares; residualDOF = s.residualDOF
    }
}
