internal import Numerics

/// Fixed-interval Rauch–Tung–Striebel smoothing of every tag's filter run, for offline replay.
///
/// While recording, the tracker hands over, for every ranging line of a placed tag, the filter's
/// predicted state (before the line's updates) and its filtered state (after them). The backward pass
/// then runs per tag and per segment (a re-initialisation starts a new one):
/// `C = cov(xₖ, x⁻ₖ₊₁)·(P⁻ₖ₊₁)⁻¹`, `xˢₖ = xₖ + C·(xˢₖ₊₁ − x⁻ₖ₊₁)`, `Pˢₖ = Pₖ + C·(Pˢₖ₊₁ − P⁻ₖ₊₁)·Cᵀ`,
/// with `cov(xₖ, x⁻ₖ₊₁) = Pₖ·Fᵀ` (velocity columns zeroed where a stationary hint held the velocity).
/// Memory: 54 doubles (432 bytes) per recorded line.
public struct TrajectorySmoother: Sendable {
    /// One recorded step of one tag.
    struct Step: Sendable {
        var time: Nanoseconds
        var prior: [Double]       // x⁻ (6) + P⁻ (36)
        var posterior: [Double]   // x (6) + P (36)
        var held: Bool
        var newSegment: Bool
        var emitted: PositionEstimate?
        /// What the learned biases' errors added to the emitted estimate's covariance: the smoother
        /// averages the ranges too, not those errors, so the smoothed estimate carries it as well.
        var consider: InlineArray<9, Double>?
    }

    var steps: [String: [Step]] = [:]
    let dimensions: Int

    init(dimensions: Int) { self.dimensions = dimensions }

    mutating func record(tag: String, prior: TagFilter, posterior: TagFilter, held: Bool, newSegment: Bool) {
        steps[tag, default: []].append(Step(time: posterior.time, prior: Self.flatten(prior),
                                            posterior: Self.flatten(posterior), held: held,
                                            newSegment: newSegment, emitted: nil, consider: nil))
    }

    /// Marks the tag's latest step as one that produced an output line, with the consider covariance
    /// of the learned biases that its covariance carried (nil for none).
    mutating func markEmitted(tag: String, estimate: PositionEstimate, consider: InlineArray<9, Double>? = nil) {
        guard let last = steps[tag]?.indices.last else { return }
        steps[tag]![last].emitted = estimate
        steps[tag]![last].consider = consider
    }

    /// A filter's state and covariance as one array: `x` (`FilterState.count` values), then `p`
    /// (`FilterState.count²`, from offset `covariance`).
    static func flatten(_ f: TagFilter) -> [Double] {
        let n = FilterState.count
        var out = [Double](repeating: 0, count: n + n * n)
        for i in 0..<n { out[i] = f.x[i] }
        for i in 0..<n * n { out[covariance + i] = f.p[i] }
        return out
    }

    /// Where the covariance starts in a flattened filter (`flatten`).
    static let covariance = FilterState.count

    /// The smoothed versions of every emitted estimate, in time order (ties by tag).
    public func smoothedEstimates() -> [PositionEstimate] {
        var out: [PositionEstimate] = []
        for tag in steps.keys.sorted() { out += smooth(steps[tag]!) }
        out.sort { ($0.time, $0.tag) < ($1.time, $1.tag) }
        return out
    }

    /// Free state indices: position and velocity of the free coordinates.
    private var free: [Int] {
        typealias S = FilterState
        return dimensions == 2 ? [S.x, S.y, S.vx, S.vy] : [S.x, S.y, S.z, S.vx, S.vy, S.vz]
    }

    private func smooth(_ s: [Step]) -> [PositionEstimate] {
        guard !s.isEmpty else { return [] }
        let idx = free, m = idx.count
        // Entry (i, j) of a flattened covariance; velocity component k is `v + k`.
        func at(_ i: Int, _ j: Int) -> Int { Self.covariance + FilterState.cov(i, j) }
        let v = FilterState.velocity
        var out: [PositionEstimate] = []
        var xs = s[s.count - 1].posterior      // smoothed state of step k+1 (x and P, 42 values)
        if let e = smoothedEstimate(s[s.count - 1], xs) { out.append(e) }
        for k in stride(from: s.count - 2, through: 0, by: -1) {
            let next = s[k + 1]
            if next.newSegment {
                xs = s[k].posterior
                if let e = smoothedEstimate(s[k], xs) { out.append(e) }
                continue
            }
            let cur = s[k].posterior
            let dt = next.time.seconds(since: s[k].time)
            // G = P·Fᵀ restricted to the free indices: G[i][j] = cov(xᵢ, x⁻ⱼ).
            var g = [Double](repeating: 0, count: m * m)
            for (a, i) in idx.enumerated() {
                for (b, j) in idx.enumerated() {
                    var e = cur[at(i, j)]
                    if j < v { e += dt * cur[at(i, j + v)] }
                    if next.held && j >= v { e = 0 }
                    g[a * m + b] = e
                }
            }
            var pPrior = [Double](repeating: 0, count: m * m)
            for (a, i) in idx.enumerated() { for (b, j) in idx.enumerated() { pPrior[a * m + b] = next.prior[at(i, j)] } }
            // C = G·(P⁻)⁻¹: solve P⁻·Cᵀ = Gᵀ column by column (P⁻ symmetric).
            var c = [Double](repeating: 0, count: m * m)
            var ok = true
            for row in 0..<m {
                let rhs = (0..<m).map { g[row * m + $0] }
                guard let sol = Cholesky.solve(pPrior, rhs, n: m) else { ok = false; break }
                for col in 0..<m { c[row * m + col] = sol[col] }
            }
            var smoothed = cur
            if ok {
                var dx = [Double](repeating: 0, count: m)
                for (b, j) in idx.enumerated() { dx[b] = xs[j] - next.prior[j] }
                var dP = [Double](repeating: 0, count: m * m)
                for (a, i) in idx.enumerated() { for (b, j) in idx.enumerated() {
                    dP[a * m + b] = xs[at(i, j)] - next.prior[at(i, j)]
                } }
                for (a, i) in idx.enumerated() {
                    var e = 0.0
                    for b in 0..<m { e += c[a * m + b] * dx[b] }
                    smoothed[i] = cur[i] + e
                }
                // Pˢ = P + C·dP·Cᵀ
                var cdp = [Double](repeating: 0, count: m * m)
                for a in 0..<m { for b in 0..<m { var e = 0.0; for t in 0..<m { e += c[a * m + t] * dP[t * m + b] }; cdp[a * m + b] = e } }
                for (a, i) in idx.enumerated() { for (b, j) in idx.enumerated() {
                    var e = 0.0
                    for t in 0..<m { e += cdp[a * m + t] * c[b * m + t] }
                    smoothed[at(i, j)] = cur[at(i, j)] + e
                } }
            }
            xs = smoothed
            if let e = smoothedEstimate(s[k], xs) { out.append(e) }
        }
        return out
    }

    /// The smoothed version of a step's emitted estimate (nil when the step emitted none): the smoothed
    /// state `x` and covariance, plus the step's consider covariance.
    private func smoothedEstimate(_ step: Step, _ x: [Double]) -> PositionEstimate? {
        guard var r = step.emitted else { return nil }
        typealias S = FilterState
        func at(_ i: Int, _ j: Int) -> Int { Self.covariance + S.cov(i, j) }
        r.position = Vec3(x[S.x], x[S.y], x[S.z])
        r.velocity = Vec3(x[S.vx], x[S.vy], x[S.vz])
        r.covXX = x[at(S.x, S.x)]; r.covXY = x[at(S.x, S.y)]; r.covYY = x[at(S.y, S.y)]
        if dimensions == 3 { r.covXZ = x[at(S.x, S.z)]; r.covYZ = x[at(S.y, S.z)]; r.covZZ = x[at(S.z, S.z)] }
        if let consider = step.consider { r.addConsider(consider, dimensions: dimensions) }
        return r
    }
}
