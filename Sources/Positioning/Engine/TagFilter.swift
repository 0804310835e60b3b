public import Numerics

/// The constant-velocity extended Kalman filter of one tag.
///
/// State: position (m) and velocity (m/s) in the site frame, `[x, y, z, vx, vy, vz]`, with a 6×6
/// covariance in fixed inline storage (no heap). On 2-D sites z is pinned at the tag height and its
/// rows stay zero. Measurements are applied one scalar at a time (range, azimuth or elevation), with
/// the Joseph-form covariance update, symmetrisation and bounded variances, as in the Crazyflie EKF.
public struct TagFilter: Sendable {
    /// State vector `[x, y, z, vx, vy, vz]`.
    public private(set) var x: InlineArray<6, Double>
    /// Covariance, row-major 6×6.
    public private(set) var p: InlineArray<36, Double>
    /// Time of the state.
    public private(set) var time: Nanoseconds
    /// 2 or 3: the number of free position coordinates.
    public let dimensions: Int

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
        x[0] = position.x; x[1] = position.y; x[2] = position.z
        let d = dimensions
        for r in 0..<d { for c in 0..<d { p[r * 6 + c] = covariance[r * d + c] } }
        for k in 0..<d { p[(k + 3) * 6 + k + 3] = velocityStd * velocityStd }
    }

    public var position: Vec3 { Vec3(x[0], x[1], x[2]) }
    public var velocity: Vec3 { Vec3(x[3], x[4], x[5]) }
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
        Reported(position: position, velocity: velocity, xx: p[0], xy: p[1], yy: p[7], xz: p[2], yz: p[8], zz: p[14],
                 time: time)
    }

    /// The trace of the position covariance (m²). Mutating only so that a caller holding the filter
    /// `inout` reads it in place; the state is not changed.
    mutating func positionTrace() -> Double { p[0] + p[7] + p[14] }

    /// Element (r, c) of the covariance.
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
        guard r > 1e-6 else { return nil }
        var g = (1 / r) * d
        if dimensions == 2 { g.z = 0 }
        return (value - r, positionVariance(along: g) + std * std, g)
    }

    /// `gᵀ P g` over the position block (m²), summed in the order of the 3×3 loops.
    @inline(__always)
    private mutating func positionVariance(along g: Vec3) -> Double {
        withUnsafeMutablePointer(to: &p) { ps in
            let p = UnsafeMutableRawPointer(ps).assumingMemoryBound(to: Double.self)
            var hph = 0.0
            hph += g.x * p[0] * g.x; hph += g.x * p[1] * g.y; hph += g.x * p[2] * g.z
            hph += g.y * p[6] * g.x; hph += g.y * p[7] * g.y; hph += g.y * p[8] * g.z
            hph += g.z * p[12] * g.x; hph += g.z * p[13] * g.y; hph += g.z * p[14] * g.z
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
        for k in 0..<3 { x[k + 3] = 0 }
        for i in 0..<6 {
            for k in 3..<6 where i != k {
                p[i * 6 + k] = 0
                p[k * 6 + i] = 0
            }
        }
        for k in 0..<dimensions { p[(k + 3) * 6 + k + 3] = velocityStd * velocityStd }
    }

    /// Moves the state to its mirror image through the plane of unit normal `n` at `origin` (site
    /// frame): position reflected, velocity reflected, covariance `R P Rᵀ` with `R = I − 2nnᵀ` on the
    /// position and velocity blocks. The image fits every range from anchors in that plane as well as
    /// the state did.
    mutating func reflect(normal n: Vec3, origin: Vec3) {
        let s = n.dot(position - origin), vn = n.dot(velocity)
        for k in 0..<3 {
            x[k] -= 2 * s * n[k]
            x[k + 3] -= 2 * vn * n[k]
        }
        // R = blockdiag(H, H), H = I − 2nnᵀ (symmetric): P ← R P R.
        var r = InlineArray<36, Double>(repeating: 0)
        for b in 0..<2 {
            for i in 0..<3 {
                for j in 0..<3 { r[(3 * b + i) * 6 + 3 * b + j] = (i == j ? 1 : 0) - 2 * n[i] * n[j] }
            }
        }
        var rp = InlineArray<36, Double>(repeating: 0)
        for i in 0..<6 { for j in 0..<6 { var a = 0.0; for k in 0..<6 { a += r[i * 6 + k] * p[k * 6 + j] }; rp[i * 6 + j] = a } }
        for i in 0..<6 { for j in 0..<6 { var a = 0.0; for k in 0..<6 { a += rp[i * 6 + k] * r[k * 6 + j] }; p[i * 6 + j] = a } }
        clampVariances()
    }

    /// Adds variance to the velocity (m/s)², for example when a tag starts moving.
    public mutating func inflateVelocity(by variance: Double) {
        for k in 0..<dimensions { p[(k + 3) * 6 + k + 3] += variance }
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
        for i in 0..<6 {
            let free = (i % 3) < dimensions
            let v = p[i * 6 + i]
            if !free { p[i * 6 + i] = 0; continue }
            if !(v >= TagFilter.minVariance) { p[i * 6 + i] = TagFilter.minVariance }
            if v > TagFilter.maxVariance { p[i * 6 + i] = TagFilter.maxVariance }
        }
    }
}
