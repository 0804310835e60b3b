internal import CLAPACKE

/// The general dense solvers, backed by LAPACKE. This file is the only one that calls LAPACK.
///
/// Matrices are passed row-major as flat arrays (`a[r * cols + c]`).
public enum LAPACK {
    /// The engine's LAPACK problems are tiny (a few unknowns): BLAS threads only spin and steal the
    /// cores from the service. Where the BLAS is OpenBLAS, it is told to use one thread; the symbol is
    /// looked up at run time, so another BLAS works unchanged.
    private static let singleThreaded: Void = {
        typealias SetThreads = @convention(c) (Int32) -> Void
        if let process = dlopen(nil, RTLD_LAZY), let symbol = dlsym(process, "openblas_set_num_threads") {
            unsafeBitCast(symbol, to: SetThreads.self)(1)
        }
    }()

    /// Makes OpenBLAS use one thread from now on (its workers, started when the library loaded, stay
    /// idle). Each solver below does it on its first call; a program calls it first thing, before its
    /// threads start. Idempotent; with another BLAS it does nothing.
    public static func useOneThread() {
        _ = singleThreaded
    }

    /// The minimum-norm least-squares solution of `A x ≈ b` (LAPACK `dgelsd`, SVD based, so
    /// rank-deficient systems are handled).
    /// - Parameters:
    ///   - a: the `rows × cols` matrix, row-major.
    ///   - b: the right-hand side, `rows` values.
    /// - Returns: the solution `x` (`cols` values) and the numerical rank of `A`, or nil when LAPACK fails.
    public static func leastSquares(_ a: [Double], rows: Int, cols: Int, b: [Double]) -> (x: [Double], rank: Int)? {
        _ = singleThreaded
        precondition(a.count == rows * cols && b.count == rows)
        guard rows > 0, cols > 0 else { return nil }
        var aa = a
        let ldb = max(rows, cols)
        var bb = [Double](repeating: 0, count: ldb)
        for i in 0..<rows { bb[i] = b[i] }
        var s = [Double](repeating: 0, count: min(rows, cols))
        var rank: Int32 = 0
        let info = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, Int32(rows), Int32(cols), 1,
                                  &aa, Int32(cols), &bb, 1, &s, -1, &rank)
        guard info == 0 else { return nil }
        return (Array(bb[0..<cols]), Int(rank))
    }

    /// Eigen-decomposition of a symmetric matrix (LAPACK `dsyev`).
    /// - Parameters:
    ///   - a: the `n × n` symmetric matrix, row-major (only the upper triangle is read).
    /// - Returns: eigenvalues in ascending order and the eigenvectors as the columns of a row-major
    ///   `n × n` matrix, or nil when LAPACK fails.
    public static func symmetricEigen(_ a: [Double], n: Int) -> (values: [Double], vectors: [Double])? {
        _ = singleThreaded
        precondition(a.count == n * n)
        guard n > 0 else { return nil }
        var aa = a
        var w = [Double](repeating: 0, count: n)
        let info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, Int8(UInt8(ascii: "V")), Int8(UInt8(ascii: "U")),
                                 Int32(n), &aa, Int32(n), &w)
        guard info == 0 else { return nil }
        return (w, aa)
    }

    /// Inverse of a symmetric positive-definite matrix by Cholesky (LAPACK `dpotrf` + `dpotri`).
    /// - Returns: the full inverse (both triangles), or nil when the matrix is not positive definite.
    public static func inverseSPD(_ a: [Double], n: Int) -> [Double]? {
        _ = singleThreaded
        precondition(a.count == n * n)
        guard n > 0 else { return nil }
        var aa = a
        guard LAPACKE_dpotrf(LAPACK_ROW_MAJOR, Int8(UInt8(ascii: "U")), Int32(n), &aa, Int32(n)) == 0,
              LAPACKE_dpotri(LAPACK_ROW_MAJOR, Int8(UInt8(ascii: "U")), Int32(n), &aa, Int32(n)) == 0
        else { return nil }
        for r in 0..<n { for c in 0..<r { aa[r * n + c] = aa[c * n + r] } }
        return aa
    }
}

extension LAPACK {
    /// Singular value decomposition `A = U · diag(s) · Vᵀ` of a general matrix (LAPACK `dgesvd`, thin).
    /// - Parameters:
    ///   - a: the `rows × cols` matrix, row-major.
    /// - Returns: `u` (`rows × k`, row-major), the singular values `s` (`k`, descending) and `vt`
    ///   (`k × cols`, row-major), with `k = min(rows, cols)`; nil when LAPACK fails.
    public static func svd(_ a: [Double], rows: Int, cols: Int) -> (u: [Double], s: [Double], vt: [Double])? {
        _ = singleThreaded
        precondition(a.count == rows * cols)
        guard rows > 0, cols > 0 else { return nil }
        let k = min(rows, cols)
        var aa = a
        var s = [Double](repeating: 0, count: k)
        var u = [Double](repeating: 0, count: rows * k)
        var vt = [Double](repeating: 0, count: k * cols)
        var superb = [Double](repeating: 0, count: max(k - 1, 1))
        let info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, Int8(UInt8(ascii: "S")), Int8(UInt8(ascii: "S")),
                                  Int32(rows), Int32(cols), &aa, Int32(cols), &s, &u, Int32(k), &vt, Int32(cols),
                                  &superb)
        guard info == 0 else { return nil }
        return (u, s, vt)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
