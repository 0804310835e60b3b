import Numerics
public import Positioning

/// Anchor self-positioning from anchor-to-anchor ranges: averaged pair ranges, classical MDS for a
/// starting point, Procrustes alignment to the reference anchors, then Levenberg–Marquardt over every
/// free anchor coordinate, with each anchor's uncertainty from `(JᵀWJ)⁻¹`.
public enum Calibration {
    /// Solves for the anchors' positions. Pure: values in, values out.
    /// - Parameters:
    ///   - site: the site; its anchor positions are the reference anchors' known positions (and, in
    ///     2-D mode, every anchor's height).
    ///   - ranges: anchor-to-anchor ranges, bias removed, any order, both directions welcome.
    ///   - options: reference anchors, 2-D or 3-D solve.
    /// - Throws: `CalibrationError` naming the reason when the configuration cannot be solved.
    public static func solve(site: Site, ranges: [AnchorRange],
                             options: CalibrationOptions = CalibrationOptions()) throws(CalibrationError) -> CalibrationResult {
        let d = options.dimensions == 3 ? 3 : 2
        let fixed = try referenceAnchors(site, options.fixed)
        let graph = RangeGraph(site: site, ranges: ranges)
        try graph.validate(fixed: fixed, dimensions: d)
        let nodes = Array(Set(graph.participants).union(fixed)).sorted()
        let m = nodes.count
        guard let x = MDS.embed(graph.distanceMatrix(nodes, dimensions: d), count: m, dimensions: d) else {
            throw .didNotConverge
        }
        let row = { (slot: Int) in Array(x[(slot * d)..<(slot * d + d)]) }
        let slotOf = Dictionary(uniqueKeysWithValues: nodes.enumerated().map { ($1, $0) })
        let source = fixed.map { row(slotOf[$0]!) }
        let target = fixed.map { i in (0..<d).map { site.anchors[i].position[$0] } }
        let free = nodes.filter { !fixed.contains($0) }
        let adjustment = Adjustment(pairs: graph.pairs.filter { slotOf[$0.i] != nil && slotOf[$0.j] != nil },
                                    freeSlot: Dictionary(uniqueKeysWithValues: free.enumerated().map { ($1, $0) }), d: d)

        // Every handedness the references leave open, each refined; the lowest cost wins, and of equal
        // costs (a mirror the ranges cannot tell apart) the one nearer the site file's positions.
        var best: (pos: [Vec3], cost: Double, iterations: Int, prior: Double)? = nil
        for flip in d == 2 ? [false] : [false, true] {
            guard let (r, t) = MDS.align(source: source, target: target, dimensions: d, flip: flip) else { continue }
            var start = site.anchors.map(\.position)
            for i in free {
                let y = MDS.apply(r, t, row(slotOf[i]!))
                for c in 0..<d { start[i][c] = y[c] }
            }
            guard let solved = adjustment.solve(start: start, maxIterations: options.maxIterations) else { continue }
            let prior = free.reduce(0.0) { $0 + (solved.pos[$1] - site.anchors[$1].position).norm }
            if let b = best, !(solved.cost < b.cost * 0.999 - 1e-9 || (solved.cost <= b.cost * 1.001 + 1e-9 && prior < b.prior)) {
                continue
            }
            best = (solved.pos, solved.cost, solved.iterations, prior)
        }
        guard let best else { throw .didNotConverge }
        return try result(site: site, graph: graph, adjustment: adjustment, nodes: nodes, fixed: fixed,
                          solution: (best.pos, best.cost, best.iterations))
    }

    /// Reference anchor indices: validated ids, or the first three anchors.
    static func referenceAnchors(_ site: Site, _ ids: [String]?) throws(CalibrationError) -> [Int] {
        let names = ids ?? site.anchors.prefix(3).map(\.id)
        var out: [Int] = []
        for id in names {
            guard let i = site.anchorIndex[id] else { throw .unknownFixedAnchor(id) }
            if !out.contains(i) { out.append(i) }
        }
        guard out.count >= 3 else { throw .tooFewFixed(have: out.count, need: 3) }
        let pts = out.map { site.anchors[$0].position }
        var mean = Vec3.zero
        for p in pts { mean = mean + p }
        mean = (1 / Double(pts.count)) * mean
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for p in pts {
            let v = p - mean
            sxx += v.x * v.x; sxy += v.x * v.y; syy += v.y * v.y
        }
        let n = Double(pts.count)
        guard Ellipse2(xx: sxx / n, xy: sxy / n, yy: syy / n).minor > 0.05 else {
            throw .degenerateFixed(out.map { site.anchors[$0].id })
        }
        return out
    }

    /// Uncertainties and the updated site for a solution.
    static func result(site: Site, graph: RangeGraph, adjustment: Adjustment, nodes: [Int], fixed: [Int],
                       solution: (pos: [Vec3], cost: Double, iterations: Int)) throws(CalibrationError) -> CalibrationResult {
        let n = adjustment.unknowns, d = adjustment.d
        var cov = [Double]()
        if n > 0 {
            guard let info = adjustment.information(solution.pos) else { throw .didNotConverge }
            guard let inv = LAPACK.inverseSPD(info, n: n), inv.allSatisfy(\.isFinite) else {
                let weak = adjustment.weakestAnchor(info) ?? adjustment.freeSlot.keys.min()!
                throw .undetermined(anchor: site.anchors[weak].id)
            }
            cov = inv
        }
        let dof = adjustment.pairs.count - n
        let scale = dof > 0 ? max(1, solution.cost / Double(dof)) : 1
        var updated = site
        var anchors: [CalibratedAnchor] = []
        for i in nodes {
            var std = Vec3.zero, bound = Vec3.zero
            if let s = adjustment.freeSlot[i] {
                for c in 0..<d {
                    let v = max(cov[(s * d + c) * n + s * d + c], 0)
                    bound[c] = v.squareRoot(); std[c] = (v * scale).squareRoot()
                }
                // A 1-σ above 100 m means the ranges do not hold the anchor in place.
                guard std.norm < 100 else { throw .undetermined(anchor: site.anchors[i].id) }
            }
            updated.anchors[i].position = solution.pos[i]
            anchors.append(CalibratedAnchor(id: site.anchors[i].id, position: solution.pos[i], std: std, boundStd: bound,
                                            fixed: fixed.contains(i), peers: graph.peers[i],
                                            moved: (solution.pos[i] - site.anchors[i].position).norm))
        }
        let uncalibrated = site.anchors.indices.filter { !nodes.contains($0) }.map { site.anchors[$0].id }
        let rms = (solution.cost / Double(max(adjustment.pairs.count, 1))).squareRoot()
        return CalibrationResult(site: updated, anchors: anchors, uncalibrated: uncalibrated, pairs: graph.pairs.count,
                                 ranges: graph.ranges, normalizedRMS: rms, iterations: solution.iterations)
    }
}
