import Positioning

/// Section 6 of `accuracy`: the fixed-interval RTS smoother's gain (see `Smoothing.swift`).
enum SmoothingAccuracy {
    static func run(lias: LIASAccuracy.Result?, simSite: Site, sim: SimulatedAccuracy.Outcome) {
        print("\n== 5. Smoothing (fixed-interval Rauch–Tung–Striebel, as `replay --smooth`) ==")
        guard Smoothing.isAvailable else {
            print("smoother: not available")   // SMOOTHER HOOK: see Smoothing.swift
            return
        }
        var table = Table("Filtered vs smoothed (same run, same estimates' times)",
                          columns: ["data", "filtered RMSE m", "smoothed RMSE m", "gain", "smoothed cov95", "cov95 85–99 %"])
        func row(_ name: String, _ site: Site, _ run: EngineRun, _ truth: [TruthSample]) {
            let f = run.evaluate(truth: truth, site: site), s = run.evaluate(truth: truth, site: site, smoothed: true)
            let fr = f?.rmse ?? .nan, sr = s?.rmse ?? .nan
            table.add([name, Fmt.f(fr), Fmt.f(sr), Fmt.pct(1 - sr / fr) + " lower", Fmt.pct(s?.coverage95),
                       coverageVerdict("\(name) smoothed", s?.coverage95)])
        }
        if let lias { row("LIAS fast", lias.site, lias.sextant, lias.truth) } else { table.add(["LIAS fast", "-", "-", "-", "-", "n/a"]) }
        row("warehouse LOS (sim)", simSite, sim.run, sim.sim.truth)
        table.print()
    }
}
