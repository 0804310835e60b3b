internal import Numerics

/// `Σ g·gᵀ` over a round's range gradients, symmetric, accumulated term by term in the gradients'
/// order (each product once: `gᵢ·gⱼ` and `gⱼ·gᵢ` are the same number).
struct GeometryMatrix {
    var xx = 0.0, xy = 0.0, xz = 0.0, yy = 0.0, yz = 0.0, zz = 0.0

    @inline(__always)
    mutating func add(_ g: Vec3) {
        xx += g.x * g.x; xy += g.x * g.y; xz += g.x * g.z
        yy += g.y * g.y; yz += g.y * g.z; zz += g.z * g.z
    }

    /// The matrix, 3×3 row-major.
    var matrix: InlineArray<9, Double> {
        var m = InlineArray<9, Double>(repeating: 0)
        m[0] = xx; m[1] = xy; m[2] = xz
        m[3] = xy; m[4] = yy; m[5] = yz
        m[6] = xz; m[7] = yz; m[8] = zz
        return m
    }

    /// The test of `TrackerContext.separatesBiasFromPosition` for `count` gradients.
    func separates(count: Int, dimensions d: Int, minShare: Double) -> Bool {
        TrackerContext.smallestEigenvalue(matrix, d) >= minShare * Double(count) / Double(d)
    }
}
