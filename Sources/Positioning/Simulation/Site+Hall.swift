internal import Numerics

extension Site {
    /// A simulated 3-D hall, 60 × 40 × 10 m, with 16 UWB anchors on a 4 × 4 grid at four heights
    /// (1.5, 3, 6 and 9.5 m): the site of `sextant-bench throughput` and of tests that need a large
    /// 3-D site. Its vertical geometry is weak, as in real halls, where anchors on walls and ceilings
    /// see most tags along nearly horizontal lines.
    public static var hall: Site {
        let xs = [0.5, 20, 40, 59.5], ys = [0.5, 13.3, 26.7, 39.5], zs = [9.5, 3.0, 6.0, 1.5]
        var anchors: [Anchor] = []
        for (i, x) in xs.enumerated() {
            for (j, y) in ys.enumerated() {
                anchors.append(Anchor(id: "H\(anchors.count + 1)", position: Vec3(x, y, zs[(i + 2 * j) % 4]),
                                      technologies: [.uwb]))
            }
        }
        return Site(id: "hall", name: "Throughput hall 60 × 40 × 10 m", dimensions: 3, tagHeight: nil,
                    bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(60, 40, 10)), anchors: anchors, zones: [])
    }
}
