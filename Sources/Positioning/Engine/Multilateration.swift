public import Numerics

/// Why a multilateration could not produce a position.
public enum MultilaterationError: Error, Equatable, CustomStringConvertible {
    /// Not enough independent observations for the unknowns.
    case tooFewObservations(have: Int, need: Int)
    /// The anchors' geometry cannot fix the position (for example all anchors on one line in 2-D).
    case degenerateGeometry
    /// Gauss–Newton did not converge, or converged outside any plausible place.
    case didNotConverge

    public var description: String {
        switch self {
        case .tooFewObservations(let have, let need): "too few observations (\(have), need \(need))"
        case .degenerateGeometry: "degenerate anchor geometry"
        case .didNotConverge: "did not converge"
        }
    }
}

/// A position fix from multilateration.
public struct Fix: Sendable, Equatable {
    /// Position, site frame, metres (z is the fixed height on 2-D solves).
    public var position: Vec3
    /// Covariance of the free coordinates, row-major `d × d` (m²), scaled by the residual fit when the
    /// residuals are larger than their stated noise.
    public var covariance: [Double]
    /// Root-mean-square of the noise-normalised residuals.
    public var normalizedRMS: Double
    /// Number of observations used.
    public var observations: Int
}

/// Nonlinear least-squares multilateration: ranges and anchor-frame angles from any number of anchors,
/// solved by iteratively reweighted Gauss–Newton (Huber weights), each step by Householder QR
/// (`SmallLeastSquares`).
public enum Multilateration {
    /// Solves for a position.
    /// - Parameters:
    ///   - observations: ranges (bias removed) and angles; at least one per unknown.
    ///   - dimensions: 2 (x, y at `height`) or 3.
    ///   - height: the fixed tag height in metres for 2-D solves.
    ///   - initial: a starting point; nil to compute one from the observations.
    ///   - bounds: the site bounds; solutions far outside are refused.
    public static func solve(_ observations: [Observation], dimensions: Int, height: Double?,
                             initial: Vec3? = nil, bounds: Bounds? = nil) throws(MultilaterationError) -> Fix {
        if let refusal = refusal(observations, dimensions: dimensions) { throw refusal }
        return try solveAdmitted(observations, dimensions: dimensions, height: height, initial: initial, bounds: bounds)
    }

    /// `solve` for observations that `refusal` has already let through (nil for the same
    /// `dimensions`): a placement tries several starting points on the same observations, and tests
    /// them once.
    static func solveAdmitted(_ observations: [Observation], dimensions: Int, height: Double?,
                              initial: Vec3? = nil, bounds: Bounds? = nil) throws(MultilaterationError) -> Fix {
        let d = dimensions == 2 ? 2 : 3
        let z0 = height ?? 0

        var p = initial ?? initialGuess(observations, dimensions: d, height: z0)
        if d == 2 { p.z = z0 }
        var weights = [Double](repeating: 1, count: observations.count)
        var result: (cov: [Double], rms: Double)? = nil
        for round in 0..<reweightingRounds {
            guard let step = gaussNewton(observations, weights: weights, start: p, dimensions: d) else {
                throw .degenerateGeometry
            }
            p = step.position
            result = (step.covariance, step.rms)
            // Huber reweighting on the normalised residuals (read in place: no copies of observations).
            var changed = false
            observations.withUnsafeBufferPointer { obs in
                weights.withUnsafeMutableBufferPointer { weights in
                    for i in obs.indices {
                        guard let (value, _) = predictResidual(obs, i, at: p) else { continue }
                        let e = abs(value) / obs[i].std
                        let w = e <= huberK ? 1 : huberK / e
                        if abs(w - weights[i]) > weightTolerance { changed = true }
                        weights[i] = w
                    }
                }
            }
            if !changed || round == reweightingRounds - 1 { break }
        }
        guard var (cov, rms) = result, p.isFinite else { throw .didNotConverge }
        if let bounds, !bounds.contains(p, margin: max(minBoundsMargin, boundsMarginShare * (bounds.max - bounds.min).norm)) {
            throw .didNotConverge
        }
        let dof = max(observations.count - d, 1)
        let scale = max(1, rms * rms * Double(observations.count) / Double(dof))
        for i in cov.indices { cov[i] *= scale }
        rms = rms.isFinite ? rms : .infinity
        for i in 0..<d where !(cov[i * d + i] < maxVariance) { throw .degenerateGeometry }
        return Fix(position: p, covariance: cov, normalizedRMS: rms, observations: observations.count)
    }

    /// Why `solve` refuses these observations before it iterates, whatever its starting point (too few
    /// of them, or anchors that do not span), or nil when it goes on to iterate.
    static func refusal(_ observations: [Observation], dimensions: Int) -> MultilaterationError? {
        let d = dimensions == 2 ? 2 : 3
        let ranges = observations.filter { $0.kind == .range }
        let anchorsWithRange = Set(ranges.map(\.anchor)).count
        let hasAngles = observations.contains { $0.kind != .range }
        // Ranges alone: one more anchor than unknowns. In 3-D, four anchors fix a point when they are
        // not in one plane, and fix it up to its mirror image through the plane when they are; the
        // tracker decides between the two (`AnchorPlane`), the solve returns the one it converges to.
        let need = hasAngles ? d : d + 1
        let independent = hasAngles ? observations.count : anchorsWithRange
        guard independent >= need else { return .tooFewObservations(have: independent, need: need) }
        if !hasAngles, !spans(ranges.map(\.anchorPosition), dimensions: d) { return .degenerateGeometry }
        return nil
    }

    /// The Huber threshold on normalised residuals (σ): residuals beyond it are down-weighted.
    static let huberK = 2.0
    /// Gauss–Newton solves at most, each with the Huber weights of the one before (the first with
    /// weights of 1).
    static let reweightingRounds = 4
    /// A change of some Huber weight (unitless, 0–1) beyond which another round is solved.
    static let weightTolerance = 1e-3
    /// A solution farther outside the site's bounds than this share of the bounds' diagonal (and
    /// than `minBoundsMargin`) is refused.
    static let boundsMarginShare = 0.5
    /// The smallest such margin, metres.
    static let minBoundsMargin = 5.0
    /// A variance of the solution (m², on any coordinate) at or beyond this, σ 50 m, means the
    /// observations do not fix that coordinate: the geometry is taken as degenerate.
    static let maxVariance = 2500.0
    /// Gauss–Newton iterations per solve at most.
    static let maxIterations = 30
    /// Halvings of a step that does not lower the cost, before the solve stops.
    static let maxStepHalvings = 8
    /// A step shorter than this (metres) ends the iterations: converged.
    static let convergedStep = 1e-7
    /// The smallest spread of the anchors across their horizontal direction of least spread (σ of the
    /// minor axis of their scatter, metres) for ranges to fix a position: less, and they are on a line.
    static let minAnchorSpread = 0.05
    /// Where the linearised equations cannot start a solve: the start is this far from the anchors'
    /// centroid (metres, east, north, and down in 3-D), off the centroid where the model is singular
    /// for anchors placed symmetrically.
    static let centroidOffset = Vec3(0.5, 0.5, -1)

    /// True when the points span a line (2-D) or a plane (3-D) well enough to fix a position by ranges.
    static func spans(_ points: [Vec3], dimensions d: Int) -> Bool {
        guard points.count >= 2 else { return false }
        let n = Double(points.count)
        var mean = Vec3.zero
        for q in points { mean = mean + q }
        mean = (1 / n) * mean
        // Scatter of horizontal coordinates: in both 2-D and 3-D the anchors must not be collinear in
        // plan view (3-D sites with anchors in one horizontal plane stay solvable below the plane).
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for q in points {
            let v = q - mean
            sxx += v.x * v.x; sxy += v.x * v.y; syy += v.y * v.y
        }
        let e = Ellipse2(xx: sxx / n, xy: sxy / n, yy: syy / n)
        return e.minor > minAnchorSpread && (d == 2 || points.count >= 4)
    }

    /// A starting point: from a range with a full direction when there is one, else the linearised
    /// range equations solved by least squares, else the centroid of the anchors.
    static func initialGuess(_ obs: [Observation], dimensions d: Int, height z0: Double) -> Vec3 {
        var centroid = Vec3.zero
        for o in obs { centroid = centroid + o.anchorPosition }
        centroid = (1 / Double(max(obs.count, 1))) * centroid
        if let p = directionGuess(obs, height: z0, dimensions: d) { return p }
        var m = 0
        for o in obs where o.kind == .range { m += 1 }
        if m == 0, let p = bearingGuess(obs, height: z0, dimensions: d) { return p }
        guard m >= d + 1 else { return offCentroid(centroid, dimensions: d, height: z0) }
        // |p|² − 2 aᵢ·p + |aᵢ|² = rᵢ²; subtracting the mean equation removes |p|². The equations
        // (`eq`), their mean and the differences go into one scratch buffer, in the order and with
        // the arithmetic of arrays built row by row.
        let width = d + 1
        let x: Vec3? = withUnsafeTemporaryAllocation(of: Double.self, capacity: m * width + m * d + m) { scratch in
            let ref = scratch.baseAddress!, a = ref + m * width, b = a + m * d
            var row = 0
            for o in obs where o.kind == .range {
                eq(o, d: d, z0: z0, into: ref + row * width)
                row += 1
            }
            var meanRow = InlineArray<4, Double>(repeating: 0)
            for r in 0..<m { for k in 0...d { meanRow[k] += ref[r * width + k] / Double(m) } }
            for r in 0..<m {
                for k in 0..<d { a[r * d + k] = ref[r * width + k] - meanRow[k] }
                b[r] = ref[r * width + d] - meanRow[d]
            }
            return SmallLeastSquares.solve(a, b, rows: m, cols: d)
        }
        guard let x else { return offCentroid(centroid, dimensions: d, height: z0) }
        return Vec3(x.x, x.y, d == 2 ? z0 : x.z)
    }

    /// The fallback start: `centroidOffset` from the anchors' centroid (at the fixed height in 2-D).
    private static func offCentroid(_ centroid: Vec3, dimensions d: Int, height z0: Double) -> Vec3 {
        let o = centroidOffset
        return Vec3(centroid.x + o.x, centroid.y + o.y, d == 2 ? z0 : centroid.z + o.z)
    }

    /// One linearised range equation `[-2aₓ, -2a_y, (-2a_z), rᵢ² − |aᵢ|² (− z-terms)]` without the |p|²
    /// term, written to `out` (`d + 1` values).
    private static func eq(_ o: Observation, d: Int, z0: Double, into out: UnsafeMutablePointer<Double>) {
        let a = o.anchorPosition
        if d == 2 {
            let dz = z0 - a.z
            out[0] = -2 * a.x; out[1] = -2 * a.y; out[2] = o.value * o.value - a.x * a.x - a.y * a.y - dz * dz
            return
        }
        out[0] = -2 * a.x; out[1] = -2 * a.y; out[2] = -2 * a.z; out[3] = o.value * o.value - a.dot(a)
    }

    /// Bearings only: the least-squares intersection of the anchors' rays, the point `p` that minimises
    /// `Σ |(I − uuᵀ)(p − a)|²` over the rays `a + t·u` (the latest azimuth of each anchor, with its
    /// elevation, else level in the anchor frame; in 2-D, their horizontal parts). Nil when fewer than
    /// two anchors have an azimuth or the rays are parallel.
    static func bearingGuess(_ obs: [Observation], height z0: Double, dimensions d: Int) -> Vec3? {
        var m = [Double](repeating: 0, count: 9), b = [Double](repeating: 0, count: 3)
        var anchors = Set<Int>()
        for o in obs.reversed() where o.kind == .azimuth && !anchors.contains(o.anchor) {
            anchors.insert(o.anchor)
            let el = obs.last(where: { $0.kind == .elevation && $0.anchor == o.anchor })?.value ?? 0
            var u = o.toAnchor.transposed * Vec3(cos(el) * cos(o.value), cos(el) * sin(o.value), sin(el))
            if d == 2 { u.z = 0 }
            guard let n = u.normalized else { continue }
            u = n
            let a = o.anchorPosition
            for i in 0..<d {
                for j in 0..<d {
                    let pij = (i == j ? 1 : 0) - u[i] * u[j]
                    m[i * d + j] += pij
                    b[i] += pij * a[j]
                }
            }
        }
        guard anchors.count >= 2, let x = SmallLeastSquares.solve(Array(m[0..<(d * d)]), rows: d, cols: d,
                                                                   b: Array(b[0..<d])) else { return nil }
        let p = Vec3(x[0], x[1], d == 2 ? z0 : x[2])
        return p.isFinite ? p : nil
    }

    /// A position from one anchor's range and azimuth (and elevation, or the fixed height in 2-D).
    private static func directionGuess(_ obs: [Observation], height z0: Double, dimensions d: Int) -> Vec3? {
        for r in obs where r.kind == .range {
            guard let az = obs.first(where: { $0.kind == .azimuth && $0.anchor == r.anchor }) else { continue }
            let el = obs.first(where: { $0.kind == .elevation && $0.anchor == r.anchor })?.value ?? 0
            let u = Vec3(cos(el) * cos(az.value), cos(el) * sin(az.value), sin(el))
            var p = r.anchorPosition + r.value * (r.toAnchor.transposed * u)
            if d == 2 { p.z = z0 }
            return p
        }
        return nil
    }

    /// Observation `i`'s residual (measured − predicted, wrapped for angles) at `p` and its gradient,
    /// nil where the model is singular: `predict` and `residual`, with a range's arithmetic written out
    /// so that the observation is read in place rather than copied (144 bytes) for the call.
    @inline(__always)
    private static func predictResidual(_ obs: UnsafeBufferPointer<Observation>, _ i: Int, at p: Vec3)
        -> (residual: Double, gradient: Vec3)? {
        if obs[i].kind == .range {
            let d = p - obs[i].anchorPosition
            let r = d.norm
            guard r > Observation.minRange else { return nil }
            return (obs[i].value - r, (1 / r) * d)
        }
        guard let pr = obs[i].predict(at: p) else { return nil }
        return (obs[i].residual(pr.value), pr.gradient)
    }

    private struct Step { var position: Vec3; var covariance: [Double]; var rms: Double }

    /// Weighted Gauss–Newton with step halving; returns nil for a rank-deficient system.
    private static func gaussNewton(_ obs: [Observation], weights: [Double], start: Vec3, dimensions d: Int) -> Step? {
        obs.withUnsafeBufferPointer { obs in
            weights.withUnsafeBufferPointer { weights in
                withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * obs.count + obs.count * d) { scratch in
                    gaussNewton(obs, weights: weights, start: start, dimensions: d, scratch: scratch.baseAddress!)
                }
            }
        }
    }

    /// `gaussNewton` in place: `scratch` holds `2 n + n d` doubles (n observations) for each row's
    /// scale `√wᵢ / σᵢ` (the weights do not change within a call), the weighted residuals and the
    /// weighted Jacobian, reused by every iteration (solved in place).
    private static func gaussNewton(_ obs: UnsafeBufferPointer<Observation>, weights: UnsafeBufferPointer<Double>,
                                    start: Vec3, dimensions d: Int, scratch: UnsafeMutablePointer<Double>) -> Step? {
        let n = obs.count
        let scale = scratch, b = scratch + n, a = b + n
        for i in 0..<n { scale[i] = weights[i].squareRoot() / obs[i].std }
        var p = start
        var cost = weightedCost(obs, weights, at: p)
        for _ in 0..<maxIterations {
            var rows = 0
            for i in 0..<n {
                guard let (residual, gradient) = predictResidual(obs, i, at: p) else { continue }
                let s = scale[i]
                a[rows * d] = gradient.x * s
                a[rows * d + 1] = gradient.y * s
                if d == 3 { a[rows * d + 2] = gradient.z * s }
                b[rows] = residual * s
                rows += 1
            }
            guard rows >= d, let x = SmallLeastSquares.solve(a, b, rows: rows, cols: d) else { return nil }
            var delta = Vec3(x.x, x.y, d == 3 ? x.z : 0)
            var accepted = false
            for _ in 0..<maxStepHalvings {
                let q = p + delta
                let c = weightedCost(obs, weights, at: q)
                if c <= cost { p = q; cost = c; accepted = true; break }
                delta = 0.5 * delta
            }
            if !accepted || delta.norm < convergedStep { break }
        }
        // Covariance (JᵀWJ)⁻¹ at the solution.
        var info = [Double](repeating: 0, count: d * d)
        var sumSq = 0.0
        for i in 0..<n {
            guard let (residual, gradient) = predictResidual(obs, i, at: p) else { continue }
            let w = weights[i] / (obs[i].std * obs[i].std)
            for r in 0..<d { for c in 0..<d { info[r * d + c] += gradient[r] * gradient[c] * w } }
            let e = residual / obs[i].std
            sumSq += e * e
        }
        guard let cov = SmallLeastSquares.inverseSPD(info, n: d) else { return nil }
        return Step(position: p, covariance: cov, rms: (sumSq / Double(max(n, 1))).squareRoot())
    }

    private static func weightedCost(_ obs: UnsafeBufferPointer<Observation>, _ w: UnsafeBufferPointer<Double>,
                                     at p: Vec3) -> Double {
        var c = 0.0
        for i in obs.indices {
            guard let (residual, _) = predictResidual(obs, i, at: p) else { return .infinity }
            let e = residual / obs[i].std
            c += w[i] * e * e
        }
        return c
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
