import Numerics
import Positioning

/// Section 4b of `accuracy`: 3-D sites whose anchors lie in (or near) one plane, where ranges fix a
/// tag only up to its mirror image through that plane: a four-anchor room, tripod anchors crossed by
/// the tag, and a ceiling hall. Each next to the posterior Cramér–Rao bound and the textbook 3-D EKF
/// on the same input.
enum PlanarAccuracy {
    /// A room of 8 × 6 × 3 m with four UWB anchors on the walls at 2.3–2.6 m (a starter kit).
    static let room = Site(id: "room4", name: "Four-anchor room", dimensions: 3, tagHeight: nil,
                           bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(8, 6, 3)),
                           anchors: [Anchor(id: "A1", position: Vec3(0.1, 0.1, 2.3), technologies: [.uwb]),
                                     Anchor(id: "A2", position: Vec3(7.9, 0.1, 2.6), technologies: [.uwb]),
                                     Anchor(id: "A3", position: Vec3(7.9, 5.9, 2.4), technologies: [.uwb]),
                                     Anchor(id: "A4", position: Vec3(0.1, 5.9, 2.5), technologies: [.uwb])],
                           zones: [])
    /// Four tripod anchors at 0.55 m around a 6 × 6 m flight area 2.5 m high.
    static let tripods = Site(id: "tripods", name: "Tripod anchors", dimensions: 3, tagHeight: nil,
                              bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(6, 6, 2.5)),
                              anchors: [Anchor(id: "T1", position: Vec3(0.5, 0.5, 0.55), technologies: [.uwb]),
                                        Anchor(id: "T2", position: Vec3(5.5, 0.5, 0.55), technologies: [.uwb]),
                                        Anchor(id: "T3", position: Vec3(5.5, 5.5, 0.55), technologies: [.uwb]),
                                        Anchor(id: "T4", position: Vec3(0.5, 5.5, 0.55), technologies: [.uwb])],
                              zones: [])
    /// A hall of 30 × 20 × 6 m with six anchors on the ceiling at 5.8 m.
    static let ceiling = Site(id: "ceiling", name: "Ceiling hall", dimensions: 3, tagHeight: nil,
                              bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(30, 20, 6)),
                              anchors: [Vec3(1, 1, 5.8), Vec3(15, 1, 5.8), Vec3(29, 1, 5.8), Vec3(29, 19, 5.8),
                                        Vec3(15, 19, 5.8), Vec3(1, 19, 5.8)].enumerated().map {
                                            Anchor(id: "C\($0.offset + 1)", position: $0.element, technologies: [.uwb])
                                        },
                              zones: [])

    static let roomTarget = 1.5, tripodTarget = 1.5, ceilingTarget = 1.25, availabilityTarget = 0.95

    static func run(quick: Bool) {
        let size = quick ? SimulatedAccuracy.Size(tags: 3, duration: 40) : SimulatedAccuracy.Size(tags: 3, duration: 90)
        let hall = quick ? SimulatedAccuracy.Size(tags: 4, duration: 40) : SimulatedAccuracy.Size(tags: 8, duration: 90)
        print("\n== 4b. Anchors in one plane (3-D, line of sight, zero-bias anchors; dropouts and suspensions kept): "
              + "a four-anchor room (tags carried at 0.8–1.6 m), tripods at 0.55 m crossed by tags flying 0–2.2 m, "
              + "a ceiling hall (six anchors at 5.8 m); \(size.tags) tags × \(Int(size.duration)) s, hall \(hall.tags) × \(Int(hall.duration)) s ==")
        var table = Table("RMSE vs PCRB and the textbook 3-D EKF (room, hall: 3-D errors; tripods: horizontal)",
                          columns: ["scenario", "RMSE m", "PCRB m", "RMSE/PCRB", "target", "verdict", "textbook EKF m",
                                    "availability", "target", "verdict", "cov95", "cov95 85–99 %", "3-D RMSE m, cov95", "undecided"])
        row(&table, name: "four-anchor room", site: room, size: size, seed: 4, heights: 0.8...1.6, horizontal: false,
            target: roomTarget)
        row(&table, name: "tripods, crossing", site: tripods, size: size, seed: 5, heights: 0.0...2.2, horizontal: true,
            target: tripodTarget)
        row(&table, name: "ceiling hall", site: ceiling, size: hall, seed: 6, heights: nil, horizontal: false,
            target: ceilingTarget)
        table.print()
        print("  undecided: share of positions whose side of the anchors' plane the engine could not tell (mx/my/mz on the line).")
        print("  Tripods: horizontal RMSE and coverage against the horizontal bound; then the 3-D RMSE (mirror images included) and")
        print("  the 3-D coverage (held to 85–99 % too). The textbook EKF has no bounds: on the tripods it leaves the site and diverges.")
    }

    private static func row(_ table: inout Table, name: String, site: Site, size: SimulatedAccuracy.Size, seed: UInt64,
                            heights: ClosedRange<Double>?, horizontal: Bool, target: Double) {
        let o = SimulatedAccuracy.simulate(site, size, seed: seed, keepEvents: true, heights: heights)
        let options = Evaluation.Options(warmupOrigin: .firstTruth)
        let m3 = Evaluation(truth: o.sim.truth, estimates: o.run.estimates, dimensions: [site.id: 3], options: options).site(site.id)
        let m2 = Evaluation(truth: o.sim.truth, estimates: o.run.estimates, dimensions: [site.id: 2], options: options).site(site.id)
        let m = horizontal ? m2 : m3
        var bound = PCRB(site: site, q: EngineConfig().movingAccelerationNoise)
        bound.horizontalOnly = horizontal
        let pcrb = bound.bound(events: o.sim.events, truth: o.sim.truth, queries: o.run.estimates)
        let (samples, tags) = Textbook.ranges(o.sim.events, site: site)
        let textbook = TextbookEKF3.run(samples, tags: tags, site: site)
        let tm = Evaluation(truth: o.sim.truth, estimates: textbook, dimensions: [site.id: horizontal ? 2 : 3]).site(site.id)
        let rmse = m?.rmse ?? .nan, availability = m?.availability ?? .nan
        let undecided = o.run.undecided
        table.add([name, Fmt.f(rmse), Fmt.f(pcrb), Fmt.f(rmse / pcrb, 2), "≤ \(target)",
                   Verdicts.check("\(name) RMSE/PCRB", rmse / pcrb <= target), Fmt.f(tm?.rmse ?? .nan),
                   Fmt.pct(availability), "≥ 95 %", Verdicts.check("\(name) availability", availability >= availabilityTarget),
                   Fmt.pct(m?.coverage95), coverageVerdict(name, m?.coverage95),
                   horizontal ? Fmt.f(m3?.rmse ?? .nan) + ", " + Fmt.pct(m3?.coverage95) + " "
                       + coverageVerdict("\(name) 3-D", m3?.coverage95) : "(left)",
                   Fmt.pct(Double(undecided) / Double(max(1, o.run.estimates.count)))])
    }
}
