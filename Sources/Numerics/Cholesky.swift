/// Small dense symmetric positive-definite solves by Cholesky factorisation, hand-written for the
/// sizes the engine uses every few milliseconds (n ≤ 64), where a LAPACK call costs more than it saves.
public enum Cholesky {
    /// Solves `A x = b` for a symmetric positive-definite `n × n` matrix `A` (row-major; only the lower
    /// triangle is read).
    /// - Returns: `x`, or nil when `A` is not positive definite.
    public static func solve(_ a: [Double], _ b: [Double], n: Int) -> [Double]? {
        precondition(a.count == n * n && b.count == n)
        var l = [Double](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in 0...i {
                var s = a[i * n + j]
                for k in 0..<j { s -= l[i * n + k] * l[j * n + k] }
                if i == j {
                    guard s > 0, s.isFinite else { return nil }
                    l[i * n + i] = s.squareRoot()
                } else {
                    l[i * n + j] = s / l[j * n + j]
                }
            }
        }
        var y = b
        for i in 0..<n {
            var s = y[i]
            for k in 0..<i { s -= l[i * n + k] * y[k] }
            y[i] = s / l[i * n + i]
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = y[i]
            for k in (i + 1)..<n { s -= l[k * n + i] * y[k] }
            y[i] = s / l[i * n + i]
        }
        return y
    }
}
