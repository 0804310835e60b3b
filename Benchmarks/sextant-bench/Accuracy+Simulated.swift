import Foundation
import Numerics
import Positioning

/// Sections 2–4 of `accuracy`: simulated scenarios with known truth.
enum SimulatedAccuracy {
    static let pcrbTarget = 1.25, nlosRatioTarget = 2.0, sparseTarget = 0.5
    /// "Bounded" maximum error under NLOS and outliers: under one rack aisle (a jump across the 40 × 25 m
    /// site would be tens of metres).
    static let nlosMaxTarget = 3.0

    /// Added to every scenario's seed (`--seed-offset`); 0 gives the figures of docs/benchmarks.md. Set once by
    /// `main` before any section runs.
    nonisolated(unsafe) static var seedOffset: UInt64 = 0

    /// The sizes of the runs: tags and seconds.
    struct Size { var tags: Int; var duration: Double }

    /// The demo warehouse with every anchor's bias set to zero (a line-of-sight, calibrated site).
    static var warehouse: Site {
        var site = Files.bundledSite("demo-warehouse.json") ?? Site.demoWarehouse
        for i in site.anchors.indices { site.anchors[i].rangeBias = 0 }
        return site
    }

    /// One simulated scenario run through Sextant and evaluated.
    struct Outcome {
        var sim: SimulatedRun
        var run: EngineRun
        var metrics: SiteMetrics?
    }

    static func simulate(_ site: Site, _ size: Size, seed: UInt64, nlos: Double = 0, outliers: Double = 0,
                         keepEvents: Bool = false, smooth: Bool = false,
                         heights: ClosedRange<Double>? = nil) -> Outcome {
        var config = SimulationConfig(tags: size.tags, duration: size.duration, seed: seed &+ seedOffset, nlosProbability: nlos,
                                      outlierProbability: outliers)
        if let heights { config.heightRange = heights }
        let sim = SimulatedRun(site: site, config: config, keepEvents: keepEvents)
        let run = EngineRun.replay(site: site, input: sim.input, smooth: smooth)
        return Outcome(sim: sim, run: run, metrics: run.evaluate(truth: sim.truth, site: site))
    }

    /// Section 2 (line of sight vs PCRB) and 3 (racks); returns the warehouse LOS outcome for smoothing.
    static func run(quick: Bool) -> (site: Site, outcome: Outcome) {
        let size = quick ? Size(tags: 4, duration: 40) : Size(tags: 12, duration: 120)
        print("\n== 2. Line of sight vs the posterior Cramér–Rao bound (no NLOS, no outliers, zero-bias anchors; "
              + "dropouts and suspensions kept; \(size.tags) tags × \(Int(size.duration)) s) ==")
        var table = Table("RMSE vs PCRB (CV model, q = EngineConfig.movingAccelerationNoise; 2-D: horizontal)",
                          columns: ["scenario", "ranging lines", "RMSE m", "PCRB m", "RMSE/PCRB", "target", "verdict",
                                    "cov95", "cov95 85–99 %", "hint-aware PCRB m", "RMSE/it"])
        let wh = warehouse
        let los = simulate(wh, size, seed: 1, keepEvents: true, smooth: Smoothing.isAvailable)
        addPCRBRow(&table, name: "warehouse 2-D", site: wh, los)
        if let atrium = Files.bundledSite("demo-3d.json") {
            var site = atrium
            for i in site.anchors.indices { site.anchors[i].rangeBias = 0 }
            addPCRBRow(&table, name: "atrium 3-D", site: site, simulate(site, size, seed: 2, keepEvents: true))
        }
        table.print()
        print("  The bound (target) uses the moving model throughout, so tags that stop, with stationary hints, can beat it;")
        print("  the hint-aware bound (information only) uses q = stationaryAccelerationNoise while the hint says stationary.")

        print("\n== 3. Warehouse with racks: 1/3 of pair-episodes NLOS (+0.2–1.5 m, 2× noise), 1 % gross outliers "
              + "(±20 m), vs the same seed in line of sight ==")
        let racks = simulate(wh, size, seed: 1, nlos: 1.0 / 3.0, outliers: 0.01)
        let clean = los.metrics?.rmse ?? .nan, dirty = racks.metrics?.rmse ?? .nan
        let maxErr = racks.metrics?.max ?? .nan
        var nlos = Table("NLOS and outliers", columns: ["run", "RMSE m", "p95 m", "max m", "cov95", "cov95 85–99 %"])
        nlos.add(["line of sight", Fmt.f(clean), Fmt.f(los.metrics?.p95 ?? .nan), Fmt.f(los.metrics?.max ?? .nan),
                  Fmt.pct(los.metrics?.coverage95), "(above)"])
        nlos.add(["racks", Fmt.f(dirty), Fmt.f(racks.metrics?.p95 ?? .nan), Fmt.f(maxErr),
                  Fmt.pct(racks.metrics?.coverage95), coverageVerdict("racks", racks.metrics?.coverage95)])
        nlos.print()
        var verdicts = Table("Targets", columns: ["figure", "value", "target", "verdict"])
        verdicts.add(["RMSE racks / RMSE LOS", Fmt.f(dirty / clean, 2), "≤ 2", Verdicts.check("racks RMSE ratio", dirty / clean <= nlosRatioTarget)])
        verdicts.add(["max error, racks", Fmt.f(maxErr, 2) + " m", "≤ \(Fmt.f(nlosMaxTarget, 1)) m",
                      Verdicts.check("racks max error", maxErr <= nlosMaxTarget)])
        verdicts.print()
        return (wh, los)
    }

    private static func addPCRBRow(_ table: inout Table, name: String, site: Site, _ o: Outcome) {
        let config = EngineConfig()
        var bound = PCRB(site: site, q: config.movingAccelerationNoise)
        let pcrb = bound.bound(events: o.sim.events, truth: o.sim.truth, queries: o.run.estimates)
        bound.stationaryQ = config.stationaryAccelerationNoise
        let hintAware = bound.bound(events: o.sim.events, truth: o.sim.truth, queries: o.run.estimates)
        let rmse = o.metrics?.rmse ?? .nan
        table.add([name, Fmt.count(o.sim.rangingLines), Fmt.f(rmse), Fmt.f(pcrb), Fmt.f(rmse / pcrb, 2), "≤ 1.25",
                   Verdicts.check("\(name) RMSE/PCRB", rmse / pcrb <= pcrbTarget), Fmt.pct(o.metrics?.coverage95),
                   coverageVerdict(name, o.metrics?.coverage95), Fmt.f(hintAware), Fmt.f(rmse / hintAware, 2)])
    }

    /// Section 4: one UWB anchor with direction and one Channel Sounding anchor on a 2-D site.
    static func runSparse(quick: Bool) {
        let size = quick ? Size(tags: 3, duration: 40) : Size(tags: 6, duration: 120)
        let deg = Double.pi / 180
        let site = Site(id: "sparse", name: "Sparse: 1 UWB with direction + 1 Channel Sounding", dimensions: 2, tagHeight: 1.2,
                        bounds: Bounds(min: Vec3(1.5, 1, 0), max: Vec3(12, 9, 4)),
                        anchors: [Anchor(id: "U1", position: Vec3(-1.5, 5, 2.5), technologies: [.uwb],
                                         orientation: Orientation(yaw: 0, pitch: 10 * deg, roll: 0), fieldOfView: 120 * deg),
                                  Anchor(id: "C1", position: Vec3(6.5, 0, 2.5), technologies: [.cs])],
                        zones: [])
        print("\n== 4. Sparse anchors: one UWB anchor with direction (FOV 120°, facing the 10.5 × 8 m area) and one "
              + "Channel Sounding anchor on its side; 2-D; \(size.tags) tags × \(Int(size.duration)) s ==")
        let o = simulate(site, size, seed: 3)
        let m = o.metrics
        var table = Table("Sparse anchors", columns: ["RMSE m", "median m", "p95 m", "max m", "availability", "cov95",
                                                      "target", "RMSE", "cov95 85–99 %"])
        table.add([Fmt.f(m?.rmse ?? .nan), Fmt.f(m?.median ?? .nan), Fmt.f(m?.p95 ?? .nan), Fmt.f(m?.max ?? .nan),
                   Fmt.pct(m?.availability), Fmt.pct(m?.coverage95), "< 0.5",
                   Verdicts.check("sparse RMSE", (m?.rmse ?? .nan) < sparseTarget), coverageVerdict("sparse", m?.coverage95)])
        table.print()
    }
}
