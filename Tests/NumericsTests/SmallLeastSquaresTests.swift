import Testing
@testable import Numerics

/// The hand-written solvers against LAPACK on the same problems. Tolerance 1e-10 relative: both are
/// backward stable on these well-conditioned matrices (condition < 100), so they agree to ~1e-14;
/// 1e-10 leaves room without hiding a wrong formula.
struct SmallLeastSquaresTests {
    /// A deterministic pseudo-random sequence in [-1, 1).
    struct Numbers {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 52) - 1
        }
    }

    @Test(arguments: [(1, 1), (3, 1), (2, 2), (7, 2), (3, 3), (12, 3), (24, 3)])
    func matchesLAPACK(rows: Int, cols: Int) throws {
        var r = Numbers()
        for _ in 0..<20 {
            let a = (0..<(rows * cols)).map { _ in r.next() * 10 }
            let b = (0..<rows).map { _ in r.next() * 50 }
            let ours = try #require(SmallLeastSquares.solve(a, rows: rows, cols: cols, b: b))
            let reference = try #require(LAPACK.leastSquares(a, rows: rows, cols: cols, b: b))
            guard reference.rank == cols else { continue }
            for k in 0..<cols { #expect(abs(ours[k] - reference.x[k]) <= 1e-10 * max(1, abs(reference.x[k]))) }
        }
    }

    @Test func refusesRankDeficient() {
        // Two identical columns; and a zero column.
        #expect(SmallLeastSquares.solve([1, 1, 2, 2, 3, 3], rows: 3, cols: 2, b: [1, 2, 3]) == nil)
        #expect(SmallLeastSquares.solve([1, 0, 2, 0, 3, 0], rows: 3, cols: 2, b: [1, 2, 3]) == nil)
        #expect(SmallLeastSquares.solve([1, 2], rows: 1, cols: 2, b: [1]) == nil)
    }

    @Test func exactSolutionOfSquareSystem() throws {
        let x = try #require(SmallLeastSquares.solve([2, 0, 0, 0, 3, 0, 1, 0, 4], rows: 3, cols: 3, b: [2, 6, 9]))
        #expect(abs(x[0] - 1) < 1e-15 && abs(x[1] - 2) < 1e-15 && abs(x[2] - 2) < 1e-15)
    }

    @Test(arguments: [1, 2, 3])
    func inverseMatchesLAPACK(n: Int) throws {
        var r = Numbers()
        for _ in 0..<20 {
            // B·Bᵀ + I is symmetric positive definite.
            let b = (0..<(n * n)).map { _ in r.next() }
            var a = [Double](repeating: 0, count: n * n)
            for i in 0..<n { for j in 0..<n { for k in 0..<n { a[i * n + j] += b[i * n + k] * b[j * n + k] } } }
            for i in 0..<n { a[i * n + i] += 1 }
            let ours = try #require(SmallLeastSquares.inverseSPD(a, n: n))
            let reference = try #require(LAPACK.inverseSPD(a, n: n))
            for k in 0..<(n * n) { #expect(abs(ours[k] - reference[k]) <= 1e-12 * max(1, abs(reference[k]))) }
        }
        #expect(SmallLeastSquares.inverseSPD([1, 2, 2, 1], n: 2) == nil)
        #expect(SmallLeastSquares.inverseSPD([0], n: 1) == nil)
    }
}
