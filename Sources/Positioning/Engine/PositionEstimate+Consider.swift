extension PositionEstimate {
    /// Adds a consider covariance (3 × 3 row-major; only x and y on a 2-D site) to the reported one.
    mutating func addConsider(_ c: InlineArray<9, Double>, dimensions: Int) {
        covXX += c[0]; covXY += c[1]; covYY += c[4]
        if dimensions == 3 { covXZ += c[2]; covYZ += c[5]; covZZ += c[8] }
    }
}
