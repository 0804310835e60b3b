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
    /// Element (r, c) of the covariance.
    @inlinable public func cov(_ r: Int, _ c: Int) -> Double { p[r * 6 + c] }

    /// Propagates the state to `t` with the constant-velocity model.
    /// - Parameters:
    ///   - t: the new time; a time before the state's is ignored (no backward prediction).
    ///   - accelerationNoise: spectral density of the white acceleration, m²/s³ per axis.
    public mutating func predict(to t: Nanoseconds, accelerationNoise q: Double) {
        guard t > time else { return }
        let dt = Double(t - time) * 1e-9
        time = t
        let d = dimensions
        for k in 0..<d { x[k] += dt * x[k + 3] }
        // P ← F P Fᵀ with F = [I dt·I; 0 I], written in 3×3 blocks A (pos), B (pos-vel), C (vel).
        for r in 0..<d {
            for c in 0..<d {
                let b = p[r * 6 + c + 3], bt = p[(c + 3) * 6 + r], cc = p[(r + 3) * 6 + c + 3]
                p[r * 6 + c] += dt * (b + bt) + dt * dt * cc
            }
        }
        for r in 0..<d {
            for c in 0..<d {
                let v = p[r * 6 + c + 3] + dt * p[(r + 3) * 6 + c + 3]
                p[r * 6 + c + 3] = v
                p[(c + 3) * 6 + r] = v
            }
        }
        let q11 = q * dt * dt * dt / 3, q12 = q * dt * dt / 2, q22 = q * dt
        for k in 0..<d {
            p[k * 6 + k] += q11
            p[k * 6 + k + 3] += q12
            p[(k + 3) * 6 + k] += q12
            p[(k + 3) * 6 + k + 3] += q22
        }
        clampVariances()
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
        var hph = 0.0
        for r in 0..<3 { for c in 0..<3 { hph += g[r] * p[r * 6 + c] * g[c] } }
        return (o.residual(pr.value), hph + o.std * o.std, g)
    }

    /// Applies one scalar observation with measurement variance `r` (the caller's robust weighting may
    /// have inflated it above `o.std²`).
    public mutating func update(residual nu: Double, gradient g: Vec3, measurementVariance r: Double) {
        var ph = InlineArray<6, Double>(repeating: 0)
        for i in 0..<6 { ph[i] = p[i * 6] * g.x + p[i * 6 + 1] * g.y + p[i * 6 + 2] * g.z }
        let s = g.x * ph[0] + g.y * ph[1] + g.z * ph[2] + r
        guard s > 0, s.isFinite else { return }
        var k = InlineArray<6, Double>(repeating: 0)
        for i in 0..<6 { k[i] = ph[i] / s }
        for i in 0..<6 { x[i] += k[i] * nu }
        // Joseph form: P − K·phᵀ − ph·Kᵀ + S·K·Kᵀ, then symmetrised.
        for i in 0..<6 {
            for j in i..<6 {
                let v = p[i * 6 + j] - k[i] * ph[j] - ph[i] * k[j] + s * k[i] * k[j]
                p[i * 6 + j] = v
                p[j * 6 + i] = v
            }
        }
        clampVariances()
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

    /// Adds variance to the velocity (m/s)², for example when a tag starts moving.
    public mutating func inflateVelocity(by variance: Double) {
        for k in 0..<dimensions { p[(k + 3) * 6 + k + 3] += variance }
        clampVariances()
    }

    private mutating func clampVariances() {
        for i in 0..<6 {
            let free = (i % 3) < dimensions
            let v = p[i * 6 + i]
            if !free { p[i * 6 + i] = 0; continue }
            if !(v >= TagFilter.minVariance) { p[i * 6 + i] = TagFilter.minVariance }
            if v > TagFilter.maxVariance { p[i * 6 + i] = TagFilter.maxVariance }
        }
    }
}
