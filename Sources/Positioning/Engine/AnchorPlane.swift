internal import Numerics

/// The plane a 3-D site's anchors lie in, when they lie in one (tripods at one height, a ceiling,
/// wall anchors mounted near one height).
///
/// Ranges from anchors in one plane cannot tell a point from its mirror image through that plane:
/// every distance is the same. The tracker keeps the image of each tag's estimate (`mirror(of:)`)
/// and lets the site's bounds and `tagHeightRange` decide between the two (see
/// `TrackerContext+Mirror.swift`).
struct AnchorPlane: Sendable, Equatable {
    /// A point of the plane: the anchors' centroid, site frame, metres.
    let origin: Vec3
    /// The plane's unit normal (its z component is ≥ 0).
    let normal: Vec3

    /// Anchors count as one plane when their RMS distance from the best-fitting plane is at most this
    /// share of their smallest RMS spread within it: wall anchors 2.3–2.6 m high in an 8 × 6 m room
    /// give 0.04; a hall with anchors from 1.5 to 9.5 m high over 60 × 40 m gives 0.2.
    static let flatness = 0.1

    /// The best-fitting plane of `points` when they are flat enough (`flatness`) and span it (at
    /// least three points, not on one line); nil otherwise.
    init?(points: [Vec3]) {
        guard points.count >= 3 else { return nil }
        var c = Vec3.zero
        for q in points { c = c + q }
        c = (1 / Double(points.count)) * c
        // Scatter matrix, then its eigenvalues by Jacobi rotations (symmetric 3 × 3).
        var s = [[Double]](repeating: [0, 0, 0], count: 3)
        for q in points {
            let v = q - c
            for r in 0..<3 { for k in 0..<3 { s[r][k] += v[r] * v[k] / Double(points.count) } }
        }
        let (values, vectors) = Self.eigen(s)
        let order = (0..<3).sorted { values[$0] < values[$1] }
        let smallest = max(0, values[order[0]]), middle = values[order[1]]
        guard middle > 1e-6, smallest.squareRoot() <= Self.flatness * middle.squareRoot() else { return nil }
        var n = Vec3(vectors[0][order[0]], vectors[1][order[0]], vectors[2][order[0]])
        guard let unit = n.normalized else { return nil }
        n = unit.z < 0 ? -unit : unit
        origin = c
        normal = n
    }

    /// Signed distance of `p` from the plane along `normal`, metres.
    @inline(__always)
    func distance(_ p: Vec3) -> Double { normal.dot(p - origin) }

    /// The mirror image of `p` through the plane.
    @inline(__always)
    func mirror(of p: Vec3) -> Vec3 { p - (2 * distance(p)) * normal }

    /// Eigen-decomposition of a symmetric 3 × 3 matrix by cyclic Jacobi rotations: the eigenvalues and
    /// the eigenvectors as columns.
    static func eigen(_ m: [[Double]]) -> (values: [Double], vectors: [[Double]]) {
        var a = m
        var v: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        for _ in 0..<50 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            if off < 1e-24 { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where abs(a[p][q]) > 1e-300 {
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot(), s = t * c
                for k in 0..<3 {
                    let akp = a[k][p], akq = a[k][q]
                    a[k][p] = c * akp - s * akq
                    a[k][q] = s * akp + c * akq
                }
                for k in 0..<3 {
                    let apk = a[p][k], aqk = a[q][k]
                    a[p][k] = c * apk - s * aqk
                    a[q][k] = s * apk + c * aqk
                }
                for k in 0..<3 {
                    let vkp = v[k][p], vkq = v[k][q]
                    v[k][p] = c * vkp - s * vkq
                    v[k][q] = s * vkp + c * vkq
                }
            }
        }
        return ([a[0][0], a[1][1], a[2][2]], v)
    }
}
