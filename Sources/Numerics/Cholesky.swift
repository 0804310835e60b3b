/// Small dense symmetric positive-definite solves by Cholesky factorisation, hand-written for the
/// sizes the engine uses every few milliseconds (n ≤ 64), where a LAPACK call costs more than it saves.
public enum Cholesky {
    /// Solves `A x = b` for a symmetric positive-definite `n × n` matrix `A` (row-major; only the lower
    /// triangle is read).
    /// - Returns: `x`, or nil when `A` is not positive definite.
    public static func solve(_ a: [Double], _ b: [Double], n: Int) -> [Double]? {
        precondition(a.count == n * n && b.count == n)
        var y = b
        // Through pointers, without bounds checks; the arithmetic and its order are those of the
        // indexed loops (each sum runs over k ascending from the element's value).
        let solved: Bool = a.withUnsafeBufferPointer { a in
            y.withUnsafeMutableBufferPointer { y in
                withUnsafeTemporaryAllocation(of: Double.self, capacity: n * n) { scratch in
                    let l = scratch.baseAddress!
                    l.initialize(repeating: 0, count: n * n)
                    for i in 0..<n {
                        let li = l + i * n
                        for j in 0...i {
                            let lj = l + j * n
                            var s = a[i * n + j]
                            for k in 0..<j { s -= li[k] * lj[k] }
                            if i == j {
                                guard s > 0, s.isFinite else { return false }
                                li[i] = s.squareRoot()
                            } else {
                                li[j] = s / lj[j]
                            }
                        }
                    }
                    for i in 0..<n {
                        let li = l + i * n
                        var s = y[i]
                        for k in 0..<i { s -= li[k] * y[k] }
                        y[i] = s / li[i]
                    }
                    for i in stride(from: n - 1, through: 0, by: -1) {
                        var s = y[i]
                        for k in (i + 1)..<n { s -= l[k * n + i] * y[k] }
                        y[i] = s / l[i * n + i]
                    }
                    return true
                }
            }
        }
        guard solved else { return nil }
        return y
    }
}
