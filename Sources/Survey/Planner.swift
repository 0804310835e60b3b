public import Numerics
public import Positioning

/// Settings of anchor planning.
public struct PlanOptions: Sendable, Equatable {
    /// Anchors to add.
    public var anchors: Int
    /// Cell size of the coverage maps the candidates are judged on, metres.
    public var resolution: Double = 1
    /// Spacing of candidate places along the walls, metres.
    public var wallSpacing: Double = 2
    /// Spacing of candidate places inside the hall (columns, ceiling), metres.
    public var interiorSpacing: Double = 5
    /// Mounting height, metres; nil: the median height of the existing anchors.
    public var height: Double?
    /// The accuracy to reach, metres: planning stops as soon as the 95th percentile of σ over all
    /// cells (no-fix cells counted as `Planner.noFixSigma`) is at most this; nil: add `anchors`.
    public var target: Double?

    public init(anchors: Int) { self.anchors = anchors }
}

/// One suggested anchor and the coverage before and after it.
public struct PlanStep: Sendable {
    /// The suggested anchor (UWB, no orientation).
    public var anchor: Anchor
    /// Where it was taken from: "wall" or "interior".
    public var kind: String
    public var before: CoverageSummary, after: CoverageSummary
}

/// Greedy anchor planning: at each step, the candidate place that most improves the worst coverage
/// (the 95th percentile of σ over the cells, with no-fix cells counted as 10 m; ties go to the
/// lower mean) gets a UWB anchor.
public enum Planner {
    /// The σ a cell without a fix counts as, metres.
    public static let noFixSigma = 10.0

    /// The cost of a coverage: worst cells first, the mean as a tie-break, metres.
    public static func cost(_ cells: [CellAccuracy]) -> Double {
        let capped = cells.map { min($0.sigma, noFixSigma) }.sorted()
        let mean = capped.reduce(0, +) / Double(max(capped.count, 1))
        return SiteMetrics.percentile(sorted: capped, 0.95) + 0.1 * mean
    }

    /// The figure a target is judged by: the 95th percentile of σ over all cells, no-fix cells
    /// counted as `noFixSigma`, metres.
    public static func worstSigma(_ cells: [CellAccuracy]) -> Double {
        SiteMetrics.percentile(sorted: cells.map { min($0.sigma, noFixSigma) }.sorted(), 0.95)
    }

    /// Candidate places: along the walls (0.3 m inside the bounds) and on an interior grid, at the
    /// mounting height, not within 1 m of an existing anchor.
    public static func candidates(_ site: Site, options: PlanOptions) -> [(position: Vec3, kind: String)] {
        let b = site.bounds
        let zs = site.anchors.map(\.position.z).sorted()
        let z = options.height ?? (zs.isEmpty ? min(b.min.z + 3, b.max.z) : zs[zs.count / 2])
        let x0 = b.min.x + 0.3, x1 = b.max.x - 0.3, y0 = b.min.y + 0.3, y1 = b.max.y - 0.3
        var out: [(Vec3, String)] = []
        func steps(_ lo: Double, _ hi: Double, _ spacing: Double) -> [Double] {
            let n = max(1, Int(((hi - lo) / spacing).rounded()))
            return (0...n).map { lo + (hi - lo) * Double($0) / Double(n) }
        }
        for x in steps(x0, x1, options.wallSpacing) { out += [(Vec3(x, y0, z), "wall"), (Vec3(x, y1, z), "wall")] }
        for y in steps(y0, y1, options.wallSpacing).dropFirst().dropLast() {
            out += [(Vec3(x0, y, z), "wall"), (Vec3(x1, y, z), "wall")]
        }
        for x in steps(b.min.x, b.max.x, options.interiorSpacing).dropFirst().dropLast() {
            for y in steps(b.min.y, b.max.y, options.interiorSpacing).dropFirst().dropLast() {
                out.append((Vec3(x, y, z), "interior"))
            }
        }
        return out.filter { c in site.anchors.allSatisfy { ($0.position - c.0).horizontalNorm >= 1 } }
    }

    /// Suggests `options.anchors` anchors, one at a time; with a `target`, stops as soon as it is met
    /// (before the first anchor when the site already meets it).
    /// - Returns: the site with the suggested anchors added, one step per anchor, and the final
    ///   `worstSigma` (metres).
    public static func plan(_ site: Site, options: PlanOptions, model: CoverageModel = CoverageModel(),
                            progress: (Double) -> Void = { _ in }) -> (site: Site, steps: [PlanStep], worstSigma: Double) {
        var current = site
        var steps: [PlanStep] = []
        var before = CoverageMap(site: current, resolution: options.resolution, model: model).cells
        for k in 0..<max(0, options.anchors) {
            if let target = options.target, worstSigma(before) <= target { break }
            let candidates = Self.candidates(current, options: options)
            var best: (cost: Double, index: Int, cells: [CellAccuracy])? = nil
            var n = 1
            while current.anchor("N\(n)") != nil { n += 1 }
            for (i, c) in candidates.enumerated() {
                let trial = adding(Anchor(id: "N\(n)", position: c.position, technologies: [.uwb]), to: current)
                let cells = CoverageMap(site: trial, resolution: options.resolution, model: model).cells
                let cost = Self.cost(cells)
                if best == nil || cost < best!.cost - 1e-12 { best = (cost, i, cells) }
                progress((Double(k) + Double(i + 1) / Double(candidates.count)) / Double(options.anchors))
            }
            guard let best else { break }
            let anchor = Anchor(id: "N\(n)", position: candidates[best.index].position, technologies: [.uwb])
            current = adding(anchor, to: current)
            steps.append(PlanStep(anchor: anchor, kind: candidates[best.index].kind, before: CoverageSummary(before),
                                  after: CoverageSummary(best.cells)))
            before = best.cells
        }
        return (current, steps, worstSigma(before))
    }

    /// The site with one more anchor.
    static func adding(_ anchor: Anchor, to site: Site) -> Site {
        Site(id: site.id, name: site.name, dimensions: site.dimensions, tagHeight: site.tagHeight, bounds: site.bounds,
             anchors: site.anchors + [anchor], zones: site.zones, tagHeightRange: site.tagHeightRange)
    }
}
