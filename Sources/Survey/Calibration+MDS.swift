import Numerics

/// Classical multidimensional scaling and the Procrustes alignment that puts its result in the site frame.
enum MDS {
    /// Coordinates (`m × k`, row-major) whose distances best match the `m × m` distance matrix: the top
    /// `k` eigenvectors of the double-centred squared distances (LAPACK `dsyev`), scaled by √λ.
    static func embed(_ dist: [Double], count m: Int, dimensions k: Int) -> [Double]? {
        guard m >= 1, dist.allSatisfy(\.isFinite) else { return nil }
        var d2 = dist.map { $0 * $0 }
        var rowMean = [Double](repeating: 0, count: m)
        for a in 0..<m { for b in 0..<m { rowMean[a] += d2[a * m + b] / Double(m) } }
        let grand = rowMean.reduce(0, +) / Double(m)
        for a in 0..<m { for b in 0..<m { d2[a * m + b] = -0.5 * (d2[a * m + b] - rowMean[a] - rowMean[b] + grand) } }
        guard let eig = LAPACK.symmetricEigen(d2, n: m) else { return nil }
        var x = [Double](repeating: 0, count: m * k)
        for t in 0..<min(k, m) {
            let c = m - 1 - t           // eigenvalues ascend: the largest are last
            let s = max(eig.values[c], 0).squareRoot()
            for a in 0..<m { x[a * k + t] = eig.vectors[a * m + c] * s }
        }
        return x
    }

    /// The orthogonal transform `y ≈ R·x + t` (no scale) that best maps `source` onto `target` in the
    /// least-squares sense (Kabsch/Procrustes, LAPACK `dgesvd`). Reflections are allowed (an MDS result
    /// has an arbitrary handedness); `flip` takes the other handedness, for reference points that
    /// cannot decide it (three points in 3-D).
    static func align(source: [[Double]], target: [[Double]], dimensions k: Int, flip: Bool)
        -> (r: [Double], t: [Double])? {
        let n = Double(source.count)
        guard n > 0 else { return nil }
        var ms = [Double](repeating: 0, count: k), mt = [Double](repeating: 0, count: k)
        for (s, t) in zip(source, target) { for c in 0..<k { ms[c] += s[c] / n; mt[c] += t[c] / n } }
        var h = [Double](repeating: 0, count: k * k)       // H = Σ (s − s̄)(t − t̄)ᵀ
        for (s, t) in zip(source, target) {
            for a in 0..<k { for b in 0..<k { h[a * k + b] += (s[a] - ms[a]) * (t[b] - mt[b]) } }
        }
        guard let svd = LAPACK.svd(h, rows: k, cols: k) else { return nil }
        // R = V · diag(1, …, ±1) · Uᵀ
        var r = [Double](repeating: 0, count: k * k)
        for a in 0..<k {
            for b in 0..<k {
                var sum = 0.0
                for c in 0..<k {
                    let sign = (flip && c == k - 1) ? -1.0 : 1.0
                    sum += svd.vt[c * k + a] * sign * svd.u[b * k + c]
                }
                r[a * k + b] = sum
            }
        }
        var t = mt
        for a in 0..<k { for b in 0..<k { t[a] -= r[a * k + b] * ms[b] } }
        return (r, t)
    }

    /// Applies `R·x + t`.
    static func apply(_ r: [Double], _ t: [Double], _ x: [Double]) -> [Double] {
        let k = t.count
        return (0..<k).map { a in t[a] + (0..<k).reduce(0.0) { $0 + r[a * k + $1] * x[$1] } }
    }
}
