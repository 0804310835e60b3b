public import Numerics

/// The constant-velocity extended Kalman filter of one tag.
///
/// State: position (m) and velocity (m/s) in the site frame, `[x, y, z, vx, vy, vz]` (indices named by
/// `FilterState`), with a 6×6 covariance in fixed inline storage (no heap). On 2-D sites z is pinned at the tag height and its
/// rows stay zero. Measurements are applied one scalar at a time (range, azimuth or elevation), with
/// the Joseph-form covariance update, symmetrisation and bounded variances, as in the Crazyflie EKF.
public struct TagFilter: Sendable {
    /// State vector `[x, y, z, vx, vy, vz]` (`FilterState.x` … `FilterState.vz`).
    public private(set) var x: InlineArray<6, Double>
    /// Covariance, row-major 6×6 (entry `FilterState.cov(r, c)`).
    public private(set) var p: InlineArray<36, Double>
    /// Time of the state.
    public private(set) var time: Nanoseconds
    /// 2 or 3: the number of free position coordinates.
    public let dimensions: Int

    private typealias S = FilterState

    /// Largest variance allowed on any coordinate (m², (m/s)²): keeps an unobserved filter bounded.
    static let maxVariance = 1.0e4
    /// Smallest variance kept on a free coordinate, so that the filter never becomes certain.
    static let minVariance = 1.0e-8

    /// Starts a filter at a position fix.
    /// - Parameters:
    ///   - position: site frame, metres.
    ///   - covariance: `d × d` row-major position covariance (m²).
    ///   - velocityStd: 1-σ of the unknown initial velocity, m/s.
    public init(position: Vec3, covariance: [Double], dimensions: Int, velocityStd: Double, time: Nanoseconds) {
        self.dimensions = dimensions
        self.time = time
        x = InlineArray(repeating: 0)
        p = InlineArray(repeating: 0)
        x[S.x] = position.x; x[S.y] = position.y; x[S.z] = position.z
        let d = dimensions
        for r in 0..<d { for c in 0..<d { p[S.cov(r, c)] = covariance[r * d + c] } }
        for k in 0..<d { p[S.cov(S.velocity + k, S.velocity + k)] = velocityStd * velocityStd }
    }

    /// The value a track keeps before its tag is placed (see `TagTrack.placedFilter`): at the origin,
    /// with zero covariance; never used as a filter.
    static let unplaced = TagFilter(position: .zero, covariance: [0, 0, 0, 0], dimensions: 2, velocityStd: 0,
                                    time: .min)

    public var position: Vec3 { Vec3(x[S.x], x[S.y], x[S.z]) }
    public var velocity: Vec3 { Vec3(x[S.vx], x[S.vy], x[S.vz]) }
    /// What a position estimate reports of the filter: the state, the position covariance's upper
    /// triangle (m²) and the time.
    struct Reported {
        var position: Vec3, velocity: Vec3
        var xx: Double, xy: Double, yy: Double, xz: Double, yz: Double, zz: Double
        var time: Nanoseconds
    }

    /// `Reported` read in place: mutating only so that a caller holding the filter `inout` does not
    /// copy it (352 bytes) first. The state is not changed.
    mutating func reported() -> Reported {
        Reported(position: position, velocity: velocity, xx: p[S.cov(S.x, S.x)], xy: p[S.cov(S.x, S.y)],
                 yy: p[S.cov(S.y, S.y)], xz: p[S.cov(S.x, S.z)], yz: p[S.cov(S.y, S.z)], zz: p[S.cov(S.z, S.z)],
                 time: time)
    }

    /// The trace of the position covariance (m²). Mutating only so that a caller holding the filter
    /// `inout` reads it in place; the state is not changed.
    mutating func positionTrace() -> Double { p[S.cov(S.x, S.x)] + p[S.cov(S.y, S.y)] + p[S.cov(S.z, S.z)] }

    /// Element (r, c) of the covariance.
    /// (Inlinable for other modules, so written out: `FilterState.cov(r, c)`.)
    @inlinable public func cov(_ r: Int, _ c: Int) -> Double { p[r * 6 + c] }

    /// Propagates the state to `t` with the constant-velocity model.
    /// - Parameters:
    ///   - t: the new time; a time before the state's is ignored (no backward prediction).
    ///   - accelerationNoise: spectral density of the white acceleration, m²/s³ per axis.
    public mutating func predict(to t: Nanoseconds, accelerationNoise q: Double) {
        guard t > time else { return }
        // t > time: the difference fits in UInt64 whatever the two are.
        let dt = Double(UInt64(bitPattern: t &- time)) * 1e-9
        time = t
        let d = dimensions
        // Straight-line code through pointers (`TagFilter+Kernels.swift`): the arithmetic of the 6×6
        // loops, in their order. P ← F P Fᵀ + Q with F = [I dt·I; 0 I], in 3×3 blocks.
        withUnsafeMutablePointer(to: &x) { xs in
            withUnsafeMutablePointer(to: &p) { ps in
                let p = UnsafeMutableRawPointer(ps).assumingMemoryBound(to: Double.self)
                Self.propagate(x: UnsafeMutableRawPointer(xs).assumingMemoryBound(to: Double.self), p: p,
                               dt: dt, q: q, dimensions: d)
                Self.clampVariances(p, dimensions: d)
            }
        }
    }

    /// The innovation of an observation against the current state: residual, its variance
    /// `S = H P Hᵀ + R` (without robust inflation) and the gradient; nil where the model is singular.
    public func innovation(_ o: Observation) -> (residual: Double, variance: Double, gradient: Vec3)? {
        var f = self
        return f.innovationInPlace(o)
    }

    /// `innovation(o)`, for a caller that reaches the filter through a mutating access: the filter is
    /// read in place (a non-mutating call through an `inout` copies all 352 bytes first). The state is
    /// not changed.
    mutating func innovationInPlace(_ o: Observation) -> (residual: Double, variance: Double, gradient: Vec3)? {
        guard let pr = o.predict(at: position) else { return nil }
        var g = pr.gradient
        if dimensions == 2 { g.z = 0 }
        return (o.residual(pr.value), positionVariance(along: g) + o.std * o.std, g)
    }

    /// The innovation of a range of `value` metres (bias removed) with 1-σ `std` from the anchor at
    /// `anchor`, as `innovationInPlace` computes it for a range `Observation` (the same arithmetic),
    /// without building one.
    @inline(__always)
    mutating func rangeInnovation(value: Double, std: Double, anchor: Vec3)
        -> (residual: Double, variance: Double, gradient: Vec3)? {
        let d = position - anchor
        let r = d.norm
        guard r > Observation.minRange else { return nil }
        var g = (1 / r) * d
        if dimensions == 2 { g.z = 0 }
        return (value - r, positionVariance(along: g) + std * std, g)
    }

    /// `gᵀ P g` over the position block (m²), summed in the order of the 3×3 loops.
    @inline(__always)
    private mutating func positionVariance(along g: Vec3) -> Double {
        withUnsafeMutablePointer(to: &p) { ps in
            let p = UnsafeMutableRawPointer(ps).assumingMemoryBound(to: Double.self)
            let x = S.x, y = S.y, z = S.z
            var hph = 0.0
            hph += g.x * p[S.cov(x, x)] * g.x; hph += g.x * p[S.cov(x, y)] * g.y; hph += g.x * p[S.cov(x, z)] * g.z
            hph += g.y * p[S.cov(y, x)] * g.x; hph += g.y * p[S.cov(y, y)] * g.y; hph += g.y * p[S.cov(y, z)] * g.z
            hph += g.z * p[S.cov(z, x)] * g.x; hph += g.z * p[S.cov(z, y)] * g.y; hph += g.z * p[S.cov(z, z)] * g.z
            return hph
        }
    }

    /// Applies one scalar observation with measurement variance `r` (the caller's robust weighting may
    /// have inflated it above `o.std²`).
    public mutating func update(residual nu: Double, gradient g: Vec3, measurementVariance r: Double) {
        let d = dimensions
        withUnsafeMutablePointer(to: &x) { xs in
            withUnsafeMutablePointer(to: &p) { ps in
                let p = UnsafeMutableRawPointer(ps).assumingMemoryBound(to: Double.self)
                guard Self.josephUpdate(x: UnsafeMutableRawPointer(xs).assumingMemoryBound(to: Double.self), p: p,
                                        gradient: g, residual: nu, measurementVariance: r) else { return }
                Self.clampVariances(p, dimensions: d)
            }
        }
    }

    /// Sets the velocity to zero with the given 1-σ (m/s) and removes its correlation with position:
    /// the zero-velocity update for a tag known to be stationary.
    public mutating func holdStill(velocityStd: Double) {
        let v = S.velocity
        for k in 0..<3 { x[v + k] = 0 }
        for i in 0..<S.count {
            for k in v..<v + 3 where i != k {
                p[S.cov(i, k)] = 0
                p[S.cov(k, i)] = 0
            }
        }
        for k in 0..<dimensions { p[S.cov(v + k, v + k)] = velocityStd * velocityStd }
    }

    /// Moves the state to its mirror image through the plane of unit normal `n` at `origin` (site
    /// frame): position reflected, velocity reflected, covariance `R P Rᵀ` with `R = I − 2nnᵀ` on the
    /// position and velocity blocks. The image fits every range from anchors in that plane as well as
    /// the state did.
    mutating func reflect(normal n: Vec3, origin: Vec3) {
        let s = n.dot(position - origin), vn = n.dot(velocity)
        let v = S.velocity, n6 = S.count
        for k in 0..<3 {
            x[k] -= 2 * s * n[k]
            x[v + k] -= 2 * vn * n[k]
        }
        // R = blockdiag(H, H), H = I − 2nnᵀ (symmetric): P ← R P R. Block 0 is position, block 1 velocity.
        var r = InlineArray<36, Double>(repeating: 0)
        for block in 0..<2 {
            let b = block * v
            for i in 0..<3 {
                for j in 0..<3 { r[S.cov(b + i, b + j)] = (i == j ? 1 : 0) - 2 * n[i] * n[j] }
            }
        }
        var rp = InlineArray<36, Double>(repeating: 0)
        for i in 0..<n6 { for j in 0..<n6 { var a = 0.0; for k in 0..<n6 { a += r[S.cov(i, k)] * p[S.cov(k, j)] }; rp[S.cov(i, j)] = a } }
        for i in 0..<n6 { for j in 0..<n6 { var a = 0.0; for k in 0..<n6 { a += rp[S.cov(i, k)] * r[S.cov(k, j)] }; p[S.cov(i, j)] = a } }
        clampVariances()
    }

    /// Adds variance to the velocity (m/s)², for example when a tag starts moving.
    public mutating func inflateVelocity(by variance: Double) {
        for k in 0..<dimensions { p[S.cov(S.velocity + k, S.velocity + k)] += variance }
        clampVariances()
    }

    private mutating func clampVariances() {
        let d = dimensions
        withUnsafeMutablePointer(to: &p) { ps in
            Self.clampVariances(UnsafeMutableRawPointer(ps).assumingMemoryBound(to: Double.self), dimensions: d)
        }
    }

    /// Bounds the diagonal of the row-major 6×6 covariance at `p` (pinned coordinates to zero).
    @inline(__always)
    private static func clampVariances(_ p: UnsafeMutablePointer<Double>, dimensions: Int) {
        for i in 0..<S.count {
            // Position component i % 3, or its velocity: free when that coordinate is.
            let free = (i % S.velocity) < dimensions
            let v = p[S.cov(i, i)]
            if !free { p[S.cov(i, i)] = 0; continue }
            if !(v >= TagFilter.minVariance) { p[S.cov(i, i)] = TagFilter.minVariance }
            if v > TagFilter.maxVariance { p[S.cov(i, i)] = TagFilter.maxVariance }
        }
    }
}
