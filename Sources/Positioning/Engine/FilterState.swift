/// The layout of `TagFilter`'s state: where each component sits in the state vector `x`, and each
/// covariance entry in the row-major 6 × 6 `p` (`cov(_:_:)`). Every file that reads the state by index
/// names it from here, and `scripts/generate-tagfilter-kernels` writes the kernels with these names.
enum FilterState {
    /// Position, site frame, metres.
    static let x = 0, y = 1, z = 2
    /// Velocity, site frame, m/s.
    static let vx = 3, vy = 4, vz = 5
    /// The number of components (the covariance is `count × count`).
    static let count = 6
    /// The index of velocity component `k` is `velocity + k` (k = 0 for x, 1 for y, 2 for z), as the
    /// index of position component `k` is `k`.
    static let velocity = 3

    /// The index in `p` of cov(r, c).
    @inline(__always)
    static func cov(_ r: Int, _ c: Int) -> Int { r * count + c }
}
