import Numerics
public import Positioning

/// A grid of expected accuracies over a site's bounds, at one tag height.
///
/// Cells are `resolution` metres square; cell (column, row) has its centre at
/// `(minX + (column + ½)·resolution, minY + (row + ½)·resolution)`; row 0 is at the site's minimum y.
public struct CoverageMap: Sendable {
    /// The site the map was computed for.
    public let site: Site
    /// Cell size, metres.
    public let resolution: Double
    /// Tag height of the map, metres (site frame z).
    public let height: Double
    /// Grid size.
    public let columns: Int, rows: Int
    /// The cells, row-major from the minimum y.
    public let cells: [CellAccuracy]

    /// Computes the map.
    /// - Parameters:
    ///   - site: the site (bounds, anchors, dimensions).
    ///   - resolution: cell size in metres (> 0).
    ///   - height: tag height in metres; nil: the site's `tagHeight`, else 1.2 m above the floor (moved
    ///     into the site's `tagHeightRange` when it has one).
    ///   - model: maximum ranges per technology.
    ///   - progress: called now and then with the share done (0…1), for a progress display.
    public init(site: Site, resolution: Double, height: Double? = nil, model: CoverageModel = CoverageModel(),
                progress: (Double) -> Void = { _ in }) {
        self.site = site
        self.resolution = resolution
        var usual = min(site.bounds.min.z + 1.2, site.bounds.max.z)
        if let range = site.tagHeightRange { usual = range.clamping(usual) }
        let h = height ?? site.tagHeight ?? usual
        self.height = h
        let b = site.bounds
        columns = max(1, Int(((b.max.x - b.min.x) / resolution).rounded(.up)))
        rows = max(1, Int(((b.max.y - b.min.y) / resolution).rounded(.up)))
        var cells: [CellAccuracy] = []
        cells.reserveCapacity(columns * rows)
        for r in 0..<rows {
            for c in 0..<columns {
                let p = Vec3(b.min.x + (Double(c) + 0.5) * resolution, b.min.y + (Double(r) + 0.5) * resolution, h)
                cells.append(model.accuracy(site: site, at: p))
            }
            progress(Double(r + 1) / Double(rows))
        }
        self.cells = cells
    }

    /// The centre of a cell, site frame (x, y), metres.
    public func center(column: Int, row: Int) -> (x: Double, y: Double) {
        (site.bounds.min.x + (Double(column) + 0.5) * resolution, site.bounds.min.y + (Double(row) + 0.5) * resolution)
    }

    /// The cell containing (x, y), or nil outside the grid.
    public func cell(x: Double, y: Double) -> CellAccuracy? {
        let c = Int(((x - site.bounds.min.x) / resolution).rounded(.down))
        let r = Int(((y - site.bounds.min.y) / resolution).rounded(.down))
        guard c >= 0, c < columns, r >= 0, r < rows else { return nil }
        return cells[r * columns + c]
    }

    /// The summary figures of the map.
    public var summary: CoverageSummary { CoverageSummary(cells) }
}

/// The figures a coverage map is judged by. Shares are of cells (equal area), 0…1.
public struct CoverageSummary: Sendable, Equatable {
    /// Number of cells.
    public var cells: Int
    /// Share of cells with a 1-σ accuracy under 0.1 m, 0.3 m and 1 m.
    public var under10cm: Double, under30cm: Double, under1m: Double
    /// Cells where no fix is possible (fewer anchors in range than a fix needs, or singular geometry).
    public var unfixable: Int
    /// Cells with a fix but too few measurements to single out a blocked path (fewer than
    /// `dimensions + 2`; `CellAccuracy.blockedPathIdentifiable`).
    public var unidentifiable: Int
    /// Median and 95th percentile of σ over the fixable cells, metres (NaN when none).
    public var median: Double, p95: Double
    /// Largest σ over the fixable cells, metres.
    public var worst: Double

    /// - Parameter cells: the map's cells.
    public init(_ cells: [CellAccuracy]) {
        self.cells = cells.count
        let n = Double(max(cells.count, 1))
        under10cm = Double(cells.filter { $0.sigma < 0.1 }.count) / n
        under30cm = Double(cells.filter { $0.sigma < 0.3 }.count) / n
        under1m = Double(cells.filter { $0.sigma < 1 }.count) / n
        unfixable = cells.filter { !$0.fixable }.count
        unidentifiable = cells.filter { $0.fixable && !$0.blockedPathIdentifiable }.count
        let sigmas = cells.filter(\.fixable).map(\.sigma).sorted()
        median = SiteMetrics.percentile(sorted: sigmas, 0.5)
        p95 = SiteMetrics.percentile(sorted: sigmas, 0.95)
        worst = sigmas.last ?? .nan
    }

    /// A few lines of text for a terminal.
    public var text: String {
        """
        cells: \(cells)
        σ < 0.1 m: \(TextFormat.percent(under10cm)) % of the area
        σ < 0.3 m: \(TextFormat.percent(under30cm)) % of the area
        σ < 1 m:   \(TextFormat.percent(under1m)) % of the area
        median σ: \(TextFormat.fixed(median, 3)) m, p95 σ: \(TextFormat.fixed(p95, 3)) m, worst σ: \(TextFormat.fixed(worst, 3)) m
        cells with fewer anchors than a fix needs: \(unfixable) (\(TextFormat.percent(Double(unfixable) / Double(max(cells, 1)))) %)
        cells where a blocked path cannot be singled out: \(unidentifiable) (\(TextFormat.percent(Double(unidentifiable) / Double(max(cells, 1)))) %)
        """
    }
}
