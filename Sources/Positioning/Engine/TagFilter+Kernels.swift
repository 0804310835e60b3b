public import Numerics

// Generated straight-line code (no loops, no bounds checks); see TagFilter.swift for the model.
// Each statement is one iteration of the reference loops, in the same order and with the same
// arithmetic, so results are bit for bit those of the loops (`TagFilterTests` checks it).
extension TagFilter {
    /// `predict`'s state and covariance propagation over `dt` seconds for 3 or 2 free coordinates.
    @inline(__always)
    static func propagate(x: UnsafeMutablePointer<Double>, p: UnsafeMutablePointer<Double>, dt: Double, q: Double, dimensions: Int) {
        let q11 = q * dt * dt * dt / 3, q12 = q * dt * dt / 2, q22 = q * dt
        if dimensions == 3 {
            x[0] += dt * x[3]
            x[1] += dt * x[4]
            x[2] += dt * x[5]
            p[0] += dt * (p[3] + p[18]) + dt * dt * p[21]
            p[1] += dt * (p[4] + p[9]) + dt * dt * p[22]
            p[2] += dt * (p[5] + p[15]) + dt * dt * p[23]
            p[6] += dt * (p[9] + p[4]) + dt * dt * p[27]
            p[7] += dt * (p[10] + p[25]) + dt * dt * p[28]
            p[8] += dt * (p[11] + p[16]) + dt * dt * p[29]
            p[12] += dt * (p[15] + p[5]) + dt * dt * p[33]
            p[13] += dt * (p[16] + p[11]) + dt * dt * p[34]
            p[14] += dt * (p[17] + p[32]) + dt * dt * p[35]
            do { let v = p[3] + dt * p[21]; p[3] = v; p[18] = v }
            do { let v = p[4] + dt * p[22]; p[4] = v; p[24] = v }
            do { let v = p[5] + dt * p[23]; p[5] = v; p[30] = v }
            do { let v = p[9] + dt * p[27]; p[9] = v; p[19] = v }
            do { let v = p[10] + dt * p[28]; p[10] = v; p[25] = v }
            do { let v = p[11] + dt * p[29]; p[11] = v; p[31] = v }
            do { let v = p[15] + dt * p[33]; p[15] = v; p[20] = v }
            do { let v = p[16] + dt * p[34]; p[16] = v; p[26] = v }
            do { let v = p[17] + dt * p[35]; p[17] = v; p[32] = v }
            p[0] += q11; p[3] += q12; p[18] += q12; p[21] += q22
            p[7] += q11; p[10] += q12; p[25] += q12; p[28] += q22
            p[14] += q11; p[17] += q12; p[32] += q12; p[35] += q22
        } else {
            x[0] += dt * x[3]
            x[1] += dt * x[4]
            p[0] += dt * (p[3] + p[18]) + dt * dt * p[21]
            p[1] += dt * (p[4] + p[9]) + dt * dt * p[22]
            p[6] += dt * (p[9] + p[4]) + dt * dt * p[27]
            p[7] += dt * (p[10] + p[25]) + dt * dt * p[28]
            do { let v = p[3] + dt * p[21]; p[3] = v; p[18] = v }
            do { let v = p[4] + dt * p[22]; p[4] = v; p[24] = v }
            do { let v = p[9] + dt * p[27]; p[9] = v; p[19] = v }
            do { let v = p[10] + dt * p[28]; p[10] = v; p[25] = v }
            p[0] += q11; p[3] += q12; p[18] += q12; p[21] += q22
            p[7] += q11; p[10] += q12; p[25] += q12; p[28] += q22
        }
    }

    /// `update`'s Kalman step with `ph = P·Hᵀ` already known: the gain, the state and the Joseph-form
    /// covariance `P − K·phᵀ − ph·Kᵀ + S·K·Kᵀ` (upper triangle, mirrored).
    @inline(__always)
    static func josephUpdate(x: UnsafeMutablePointer<Double>, p: UnsafeMutablePointer<Double>, gradient g: Vec3,
                             residual nu: Double, measurementVariance r: Double) -> Bool {
        let ph0 = p[0] * g.x + p[1] * g.y + p[2] * g.z
        let ph1 = p[6] * g.x + p[7] * g.y + p[8] * g.z
        let ph2 = p[12] * g.x + p[13] * g.y + p[14] * g.z
        let ph3 = p[18] * g.x + p[19] * g.y + p[20] * g.z
        let ph4 = p[24] * g.x + p[25] * g.y + p[26] * g.z
        let ph5 = p[30] * g.x + p[31] * g.y + p[32] * g.z
        let s = g.x * ph0 + g.y * ph1 + g.z * ph2 + r
        guard s > 0, s.isFinite else { return false }
        let k0 = ph0 / s, sk0 = s * k0
        let k1 = ph1 / s, sk1 = s * k1
        let k2 = ph2 / s, sk2 = s * k2
        let k3 = ph3 / s, sk3 = s * k3
        let k4 = ph4 / s, sk4 = s * k4
        let k5 = ph5 / s, sk5 = s * k5
        x[0] += k0 * nu
        x[1] += k1 * nu
        x[2] += k2 * nu
        x[3] += k3 * nu
        x[4] += k4 * nu
        x[5] += k5 * nu
        p[0] = p[0] - k0 * ph0 - ph0 * k0 + sk0 * k0
        do { let v = p[1] - k0 * ph1 - ph0 * k1 + sk0 * k1; p[1] = v; p[6] = v }
        do { let v = p[2] - k0 * ph2 - ph0 * k2 + sk0 * k2; p[2] = v; p[12] = v }
        do { let v = p[3] - k0 * ph3 - ph0 * k3 + sk0 * k3; p[3] = v; p[18] = v }
        do { let v = p[4] - k0 * ph4 - ph0 * k4 + sk0 * k4; p[4] = v; p[24] = v }
        do { let v = p[5] - k0 * ph5 - ph0 * k5 + sk0 * k5; p[5] = v; p[30] = v }
        p[7] = p[7] - k1 * ph1 - ph1 * k1 + sk1 * k1
        do { let v = p[8] - k1 * ph2 - ph1 * k2 + sk1 * k2; p[8] = v; p[13] = v }
        do { let v = p[9] - k1 * ph3 - ph1 * k3 + sk1 * k3; p[9] = v; p[19] = v }
        do { let v = p[10] - k1 * ph4 - ph1 * k4 + sk1 * k4; p[10] = v; p[25] = v }
        do { let v = p[11] - k1 * ph5 - ph1 * k5 + sk1 * k5; p[11] = v; p[31] = v }
        p[14] = p[14] - k2 * ph2 - ph2 * k2 + sk2 * k2
        do { let v = p[15] - k2 * ph3 - ph2 * k3 + sk2 * k3; p[15] = v; p[20] = v }
        do { let v = p[16] - k2 * ph4 - ph2 * k4 + sk2 * k4; p[16] = v; p[26] = v }
        do { let v = p[17] - k2 * ph5 - ph2 * k5 + sk2 * k5; p[17] = v; p[32] = v }
        p[21] = p[21] - k3 * ph3 - ph3 * k3 + sk3 * k3
        do { let v = p[22] - k3 * ph4 - ph3 * k4 + sk3 * k4; p[22] = v; p[27] = v }
        do { let v = p[23] - k3 * ph5 - ph3 * k5 + sk3 * k5; p[23] = v; p[33] = v }
        p[28] = p[28] - k4 * ph4 - ph4 * k4 + sk4 * k4
        do { let v = p[29] - k4 * ph5 - ph4 * k5 + sk4 * k5; p[29] = v; p[34] = v }
        p[35] = p[35] - k5 * ph5 - ph5 * k5 + sk5 * k5
        return true
    }
}
