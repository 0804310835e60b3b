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
        let d = dimensions == 2 ? 2 : 3
        let z0 = height ?? 0
        if let refusal = refusal(observations, dimensions: d) { throw refusal }

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
            // Huber reweighting on the normalised residuals.
            var changed = false
            for (i, o) in observations.enumerated() {
                guard let pr = o.predict(at: p) else { continue }
                let e = abs(o.residual(pr.value)) / o.std
                let w = e <= huberK ? 1 : huberK / e
                if abs(w - weights[i]) > weightTolerance { changed = true }
                weights[i] = w
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
        let ranges = obs.filter { $0.kind == .range }
        if ranges.isEmpty, let p = bearingGuess(obs, height: z0, dimensions: d) { return p }
        guard ranges.count >= d + 1 else { return offCentroid(centroid, dimensions: d, height: z0) }
        // |p|² − 2 aᵢ·p + |aᵢ|² = rᵢ²; subtracting the mean equation removes |p|².
        let ref = ranges.map { eq($0, d: d, z0: z0) }
        let m = ref.count
        var meanRow = [Double](repeating: 0, count: d + 1)
        for row in ref { for k in 0...d { meanRow[k] += row[k] / Double(m) } }
        var a = [Double](), b = [Double]()
        for row in ref {
            for k in 0..<d { a.append(row[k] - meanRow[k]) }
            b.append(row[d] - meanRow[d])
        }
        guard let x = SmallLeastSquares.solve(a, rows: m, cols: d, b: b) else {
            return offCentroid(centroid, dimensions: d, height: z0)
        }
        return Vec3(x[0], x[1], d == 2 ? z0 : x[2])
    }

    /// The fallback start: `centroidOffset` from the anchors' centroid (at the fixed height in 2-D).
    private static func offCentroid(_ centroid: Vec3, dimensions d: Int, height z0: Double) -> Vec3 {
        let o = centroidOffset
        return Vec3(centroid.x + o.x, centroid.y + o.y, d == 2 ? z0 : centroid.z + o.z)
    }

    /// One linearised range equation `[-2aₓ, -2a_y, (-2a_z), rᵢ² − |aᵢ|² (− z-terms)]` without the |p|² term.
    private static func eq(_ o: Observation, d: Int, z0: Double) -> [Double] {
        let a = o.anchorPosition
        if d == 2 {
            let dz = z0 - a.z
            return [-2 * a.x, -2 * a.y, o.value * o.value - a.x * a.x - a.y * a.y - dz * dz]
        }
        return [-2 * a.x, -2 * a.y, -2 * a.z, o.value * o.value - a.dot(a)]
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

    private struct Step { var position: Vec3; var covariance: [Double]; var rms: Double }

    /// Weighted Gauss–Newton with step halving; returns nil for a rank-deficient system.
    private static func gaussNewton(_ obs: [Observation], weights: [Double], start: Vec3, dimensions d: Int) -> Step? {
        var p = start
        var cost = weightedCost(obs, weights, at: p)
        // The weighted Jacobian and residuals, reused by every iteration (solved in place).
        var a = [Double](repeating: 0, count: obs.count * d), b = [Double](repeating: 0, count: obs.count)
        for _ in 0..<maxIterations {
            var rows = 0
            obs.withUnsafeBufferPointer { obs in
                for i in obs.indices {
                    guard let pr = obs[i].predict(at: p) else { continue }
                    let s = weights[i].squareRoot() / obs[i].std
                    for k in 0..<d { a[rows * d + k] = pr.gradient[k] * s }
                    b[rows] = obs[i].residual(pr.value) * s
                    rows += 1
                }
            }
            guard rows >= d, let x = a.withUnsafeMutableBufferPointer({ ap in
                b.withUnsafeMutableBufferPointer { bp in
                    SmallLeastSquares.solve(ap.baseAddress!, bp.baseAddress!, rows: rows, cols: d)
                }
            }) else { return nil }
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
        for (i, o) in obs.enumerated() {
            guard let pr = o.predict(at: p) else { continue }
            let w = weights[i] / (o.std * o.std)
            for r in 0..<d { for c in 0..<d { info[r * d + c] += pr.gradient[r] * pr.gradient[c] * w } }
            let e = o.residual(pr.value) / o.std
            sumSq += e * e
        }
        guard let cov = SmallLeastSquares.inverseSPD(info, n: d) else { return nil }
        return Step(position: p, covariance: cov, rms: (sumSq / Double(max(obs.count, 1))).squareRoot())
    }

    private static func weightedCost(_ obs: [Observation], _ w: [Double], at p: Vec3) -> Double {
        // Read in place: `for o in obs` copies each 144-byte observation (a `memcpy`).
        obs.withUnsafeBufferPointer { obs in
            var c = 0.0
            for i in obs.indices {
                guard let pr = obs[i].predict(at: p) else { return .infinity }
                let e = obs[i].residual(pr.value) / obs[i].std
                c += w[i] * e * e
            }
            return c
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
