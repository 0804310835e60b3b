import Testing
import Numerics
@testable import Positioning

/// The anchor reports after 10 tags × 60 s of the hall simulated on `simulated` and tracked on `map`.
private func hallReports(simulated: Site, map: Site, nlos: Double = 0) -> [AnchorReport] {
    var tracker = SiteTracker(site: map)
    let sim = SimulationConfig(tags: 10, duration: 60, seed: 5, nlosProbability: nlos)
    Simulator(site: simulated, config: sim).generate(into: { e in try? tracker.handle(e) { _ in } })
    return tracker.anchorReports()
}

@Suite struct AnchorHealthTests {
    /// Lines are counted per anchor with the latest time; a line the engine refuses is not.
    @Test func linesAndLastHeardArePerAnchor() throws {
        let site = Site.demoWarehouse
        var tracker = SiteTracker(site: site)
        let t0: Nanoseconds = 1_700_000_000_000_000_000
        for (k, anchor) in ["U1", "U2", "U1"].enumerated() {
            try tracker.handle(.ranging(Ranging(site: site.id, anchor: anchor, tag: "T", distance: 5,
                                                time: t0 + Nanoseconds(k) * 1_000_000))) { _ in }
        }
        #expect(throws: EngineRejection.self) {
            try tracker.handle(.ranging(Ranging(site: site.id, anchor: "U1", tag: "T", technology: .cs, distance: 5,
                                                time: t0 + 9_000_000))) { _ in }
        }
        let reports = Dictionary(uniqueKeysWithValues: tracker.anchorReports().map { ($0.anchor, $0) })
        #expect(reports.count == site.anchors.count)
        #expect(reports["U1"]?.health.lines == 2 && reports["U1"]?.health.lastHeard == t0 + 2_000_000)
        #expect(reports["U2"]?.health.lines == 1 && reports["U2"]?.health.lastHeard == t0 + 1_000_000)
        #expect(reports["U3"]?.health.lines == 0 && reports["U3"]?.health.innovationRMS == nil)
    }

    /// An anchor whose map position is 1 m off (it was moved, or surveyed wrong) stands out: its
    /// normalised innovation RMS is 5.8 against a median of 1.1 for the others, with 193 ranges
    /// rejected against none. With a correct map every anchor's RMS is 0.84–0.97, with none rejected.
    /// With a third of the pairs' episodes blocked, the blocked share rises for every anchor.
    @Test func aMisplacedAnchorStandsOut() throws {
        let map = Site.hall
        let correct = hallReports(simulated: map, map: map)
        for r in correct {
            let rms = try #require(r.health.innovationRMS, "\(r.anchor)")
            #expect(rms > 0.5 && rms < 1.5, "\(r.anchor): \(rms)")
            #expect(r.health.ranges > 500 && Double(r.health.rejected) < 0.01 * Double(r.health.ranges), "\(r.anchor)")
        }
        var moved = map
        moved.anchors[5].position.x += 1
        let reports = hallReports(simulated: moved, map: map)
        let rms = reports.map { $0.health.innovationRMS ?? 0 }
        let others = rms.enumerated().filter { $0.offset != 5 }.map(\.element).sorted()
        #expect(rms[5] > 3 * others[others.count / 2], "moved \(rms[5]); others' median \(others[others.count / 2])")
        #expect(rms[5] == rms.max(), "\(rms)")
        #expect(reports[5].health.rejected > 50 && reports.indices.allSatisfy { $0 == 5 || reports[$0].health.rejected < 10 })

        let blocked = hallReports(simulated: map, map: map, nlos: 0.3)
        for (clear, nlos) in zip(correct, blocked) {
            let share = { (h: AnchorHealth) in Double(h.blocked) / Double(max(1, h.ranges)) }
            #expect(share(clear.health) < 0.05 && share(nlos.health) > 0.1,
                    "\(clear.anchor): \(share(clear.health)) → \(share(nlos.health))")
        }
    }
}
