import Foundation
import Numerics
import Positioning

/// Section 3b of `accuracy`: the 3-D hall under heavy NLOS, with and without the site's tag height
/// range (information: no target is set for it; its coverage is held to 85–99 % like every
/// simulated scenario).
enum HallAccuracy {
    /// The simulated tags' heights (`SimulationConfig.heightRange`), declared as the site's range.
    static let heights = 0.3...4.0

    static func run(quick: Bool) {
        let size = quick ? SimulatedAccuracy.Size(tags: 60, duration: 30) : SimulatedAccuracy.Size(tags: 300, duration: 60)
        let above = heights.upperBound + 0.6
        print("\n== 3b. 3-D hall (60 × 40 × 10 m, 16 anchors at 1.5–9.5 m), 1/3 of pair-episodes NLOS, 1 % outliers, "
              + "tags at 0.3–4 m; \(size.tags) tags × \(Int(size.duration)) s: the site's tagHeightRange ==")
        var table = Table("Heavy NLOS in the hall (3-D errors; information)",
                          columns: ["site", "RMSE m", "median m", "p95 m", "max m", "above \(Fmt.f(above, 1)) m",
                                    "cov95", "cov95 85–99 %"])
        var ranged = Site.hall
        ranged.tagHeightRange = heights
        for (name, site) in [("no tagHeightRange", Site.hall), ("tagHeightRange [0.3, 4]", ranged)] {
            // The same seed and heights: the simulated truth is the same for both rows.
            let o = SimulatedAccuracy.simulate(site, size, seed: 1, nlos: 1.0 / 3.0, outliers: 0.01)
            let m = o.metrics
            let high = o.run.estimates.count { $0.position.z > above }
            table.add([name, Fmt.f(m?.rmse ?? .nan), Fmt.f(m?.median ?? .nan), Fmt.f(m?.p95 ?? .nan),
                       Fmt.f(m?.max ?? .nan), Fmt.count(high) + String(format: " (%.2f %%)", 100 * Double(high) / Double(max(1, o.run.estimates.count))),
                       Fmt.pct(m?.coverage95), coverageVerdict("hall NLOS, \(name)", m?.coverage95)])
        }
        table.print()
    }
}
