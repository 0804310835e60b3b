/// `sextant-bench accuracy`: every accuracy section in order.
enum Accuracy {
    static func run(quick: Bool) {
        if SimulatedAccuracy.seedOffset != 0 {
            print("\nSimulated scenarios with every seed + \(SimulatedAccuracy.seedOffset) (--seed-offset): not the figures of docs/benchmarks.md")
        }
        let lias = LIASAccuracy.run(smooth: Smoothing.isAvailable)
        let sim = SimulatedAccuracy.run(quick: quick)
        HallAccuracy.run(quick: quick)
        SimulatedAccuracy.runSparse(quick: quick)
        PlanarAccuracy.run(quick: quick)
        BearingAccuracy.run(quick: quick)
        SmoothingAccuracy.run(lias: lias.first { $0.run == "fast" }, simSite: sim.site, sim: sim.outcome)
        var table = Table("== 6. Honest uncertainty: share of errors inside the reported 95 % region, every scenario above ==",
                          columns: ["scenario", "cov95", "target", "verdict"])
        for (name, c, verdict) in Verdicts.coverage { table.add([name, Fmt.pct(c), "85–99 %", verdict]) }
        table.print()
    }
}
