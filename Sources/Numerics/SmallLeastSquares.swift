/// Least squares and SPD inverses for problems of at most three unknowns (a tag's position), written in
/// Swift for the engine's hot path.
///
/// A LAPACK `dgelsd` call on a 10 × 3 problem costs about 29,000 instructions (a workspace query, the
/// row-major transposes of LAPACKE, `ilaenv` string compares, then the SVD); a Gauss–Newton placement
/// makes dozens of them. Householder QR on the same problem costs a few hundred. The solution is the
/// same least-squares solution (to rounding); a rank-deficient matrix is reported instead of solved
/// for its minimum-norm solution, which is all the engine needs (it refuses such a geometry).
public enum SmallLeastSquares {
    /// Largest number of unknowns.
    public static let maxUnknowns = 3

    /// Solves `min ‖A x − b‖` by Householder QR, in place.
    /// - Parameters:
    ///   - a: the `rows × cols` matrix, row-major; overwritten.
    ///   - b: the `rows` right-hand sides; overwritten.
    ///   - rows: at least `cols`.
    ///   - cols: 1…3.
    /// - Returns: `x` in the first `cols` components (the others 0), or nil when `A` is rank deficient:
    ///   a diagonal element of `R` at most `rows · ε · ‖A‖_F` (LAPACK's `dgelsd` with `rcond = -1` drops
    ///   singular values below `ε · σ₁`), or not finite.
    public static func solve(_ a: UnsafeMutablePointer<Double>, _ b: UnsafeMutablePointer<Double>,
                             rows m: Int, cols n: Int) -> Vec3? {
        precondition(n >= 1 && n <= maxUnknowns)
        guard m >= n else { return nil }
        // Elements are reached through pointers stepped by `n` down a column (unchecked index
        // arithmetic); the sums run over the same elements in the same order as indexing `a[i * n + k]`.
        var frobenius = 0.0
        for i in 0..<(m &* n) { frobenius += a[i] * a[i] }
        frobenius = frobenius.squareRoot()
        guard frobenius.isFinite, frobenius > 0 else { return nil }
        let tolerance = Double(m) * Double.ulpOfOne * frobenius
        var diagonal = (0.0, 0.0, 0.0)
        for k in 0..<n {
            // The reflector H = I − v·vᵀ / (vᵀv) that maps column k below the diagonal onto R[k][k].
            let top = a + (k &* n &+ k)
            var norm2 = 0.0
            do {
                var e = top
                for _ in k..<m { norm2 += e.pointee * e.pointee; e += n }
            }
            let x0 = top.pointee
            let alpha = x0 >= 0 ? -norm2.squareRoot() : norm2.squareRoot()
            guard abs(alpha) > tolerance, alpha.isFinite else { return nil }
            // v = x − alpha·e₀, stored in place of column k; vᵀv = 2·(norm2 − alpha·x0).
            top.pointee = x0 - alpha
            let vv = 2 * (norm2 - alpha * x0)
            if n == 3 && k < 2 {
                // Two targets at once, one per lane (k = 0: columns 1 and 2; k = 1: column 2 and b):
                // each lane's sum and update are the scalar loop's, in its order (a column's update
                // changes no other target, so the dots may all come first).
                reflectPair(top, second: k == 0 ? top + 2 : b + k, secondStride: k == 0 ? 3 : 1,
                            count: m &- k, vv: vv)
                if k == 0 { reflect(top, target: b, stride: 1, count: m, vv: vv) }
            } else {
                for j in (k &+ 1)..<(n &+ 1) {
                    if j < n {
                        reflect(top, target: top + (j &- k), stride: n, count: m &- k, vv: vv, vStride: n)
                    } else {
                        reflect(top, target: b + k, stride: 1, count: m &- k, vv: vv, vStride: n)
                    }
                }
            }
            switch k {
            case 0: diagonal.0 = alpha
            case 1: diagonal.1 = alpha
            default: diagonal.2 = alpha
            }
        }
        return backSubstitute(a, b, cols: n, diagonal: diagonal)
    }

    /// Applies the reflector whose vector `v` runs down from `v` (stride `vStride`) to one target of
    /// `count` elements from `target` (stride `stride`): `t −= (2 vᵀt / vv) v`.
    @inline(__always)
    private static func reflect(_ v: UnsafeMutablePointer<Double>, target: UnsafeMutablePointer<Double>,
                                stride: Int, count: Int, vv: Double, vStride: Int = 3) {
        var dot = 0.0
        var p = v, e = target
        for _ in 0..<count { dot += p.pointee * e.pointee; p += vStride; e += stride }
        let f = 2 * dot / vv
        p = v; e = target
        for _ in 0..<count { e.pointee -= f * p.pointee; p += vStride; e += stride }
    }

    /// `reflect` on two targets of a 3-column matrix at once, one per SIMD lane: column `v + 1`
    /// (stride 3) and `second` (stride `secondStride`). The same operations in the same order per
    /// lane as two calls of `reflect`.
    @inline(__always)
    private static func reflectPair(_ v: UnsafeMutablePointer<Double>, second: UnsafeMutablePointer<Double>,
                                    secondStride: Int, count: Int, vv: Double) {
        var dot = SIMD2<Double>(repeating: 0)
        var p = v, e0 = v + 1, e1 = second
        for _ in 0..<count {
            dot += SIMD2(repeating: p.pointee) * SIMD2(e0.pointee, e1.pointee)
            p += 3; e0 += 3; e1 += secondStride
        }
        let f = 2 * dot / SIMD2(repeating: vv)
        p = v; e0 = v + 1; e1 = second
        for _ in 0..<count {
            let t = SIMD2(e0.pointee, e1.pointee) - f * SIMD2(repeating: p.pointee)
            e0.pointee = t.x; e1.pointee = t.y
            p += 3; e0 += 3; e1 += secondStride
        }
    }

    /// The least-squares solution from the factored `a` and `b` (see `solve`).
    @inline(__always)
    private static func backSubstitute(_ a: UnsafeMutablePointer<Double>, _ b: UnsafeMutablePointer<Double>,
                                       cols n: Int, diagonal: (Double, Double, Double)) -> Vec3? {
        // Back-substitution R x = (Qᵀb)[0..<n]; R's off-diagonal elements are above the diagonal of a.
        var x = (0.0, 0.0, 0.0)
        if n == 3 {
            x.2 = b[2] / diagonal.2
            x.1 = (b[1] - a[1 * 3 + 2] * x.2) / diagonal.1
            x.0 = (b[0] - a[0 * 3 + 1] * x.1 - a[0 * 3 + 2] * x.2) / diagonal.0
        } else if n == 2 {
            x.1 = b[1] / diagonal.1
            x.0 = (b[0] - a[0 * 2 + 1] * x.1) / diagonal.0
        } else {
            x.0 = b[0] / diagonal.0
        }
        let v = Vec3(x.0, x.1, x.2)
        return v.isFinite ? v : nil
    }

    /// `solve(_:_:rows:cols:)` on arrays (copied, not modified).
    /// - Returns: the `cols` values of `x`, or nil when `A` is rank deficient.
    public static func solve(_ a: [Double], rows: Int, cols: Int, b: [Double]) -> [Double]? {
        precondition(a.count == rows * cols && b.count == rows)
        var aa = a, bb = b
        let x = aa.withUnsafeMutableBufferPointer { ap in
            bb.withUnsafeMutableBufferPointer { bp in solve(ap.baseAddress!, bp.baseAddress!, rows: rows, cols: cols) }
        }
        guard let x else { return nil }
        return Array([x.x, x.y, x.z].prefix(cols))
    }

    /// Inverse of a symmetric positive-definite `n × n` matrix (`n` ≤ 3, row-major, the lower triangle
    /// read) by Cholesky, as LAPACK's `dpotrf` + `dpotri`.
    /// - Returns: the full inverse (both triangles), or nil when the matrix is not positive definite.
    public static func inverseSPD(_ a: [Double], n: Int) -> [Double]? {
        precondition(n >= 1 && n <= maxUnknowns && a.count == n * n)
        // A = L·Lᵀ.
        var l = InlineArray<9, Double>(repeating: 0)
        for i in 0..<n {
            for j in 0...i {
                var s = a[i * n + j]
                for k in 0..<j { s -= l[i * 3 + k] * l[j * 3 + k] }
                if i == j {
                    guard s > 0, s.isFinite else { return nil }
                    l[i * 3 + i] = s.squareRoot()
                } else {
                    l[i * 3 + j] = s / l[j * 3 + j]
                }
            }
        }
        // M = L⁻¹ (lower triangular), then A⁻¹ = Mᵀ·M.
        var inv = InlineArray<9, Double>(repeating: 0)
        for i in 0..<n {
            inv[i * 3 + i] = 1 / l[i * 3 + i]
            for j in 0..<i {
                var s = 0.0
                for k in j..<i { s -= l[i * 3 + k] * inv[k * 3 + j] }
                inv[i * 3 + j] = s / l[i * 3 + i]
            }
        }
        var out = [Double](repeating: 0, count: n * n)
        for r in 0..<n {
            for c in 0...r {
                var s = 0.0
                for k in r..<n { s += inv[k * 3 + r] * inv[k * 3 + c] }
                out[r * n + c] = s
                out[c * n + r] = s
            }
        }
        return out
    }
}
