import Testing
import Numerics
import Positioning
@testable import Survey

/// `Simulator.anchorRanges`, the anchor-to-anchor ranges `sextant simulate --anchor-ranges` writes,
/// read back as `survey calibrate` reads them.
struct SimulatedAnchorRangesTests {
    @Test func rangesArePairsWithinReachWithTheirNoise() throws {
        let site = Site.hall
        let ranges = Simulator.anchorRanges(site: site, perPair: 4, maxRange: 40, seed: 3)
        var pairs = 0
        for (i, a) in site.anchors.enumerated() {
            for b in site.anchors[(i + 1)...] where (a.position - b.position).norm <= 40 { pairs += 1 }
        }
        #expect(pairs > 30 && ranges.count == 4 * pairs)
        #expect(Set(ranges.map(\.time)).count == ranges.count)
        var residuals: [Double] = []
        for r in ranges {
            let from = try #require(site.anchor(r.anchor)), to = try #require(site.anchor(r.tag))
            residuals.append(try #require(r.distance) - (from.position - to.position).norm - from.rangeBias)
        }
        // UWB noise 0.1 m: the mean of n residuals is within 4 σ/√n of zero, their std within 20 % of 0.1 m.
        let n = Double(residuals.count), mean = residuals.reduce(0, +) / n
        let std = (residuals.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1)).squareRoot()
        #expect(abs(mean) < 4 * 0.1 / n.squareRoot() && abs(std - 0.1) < 0.02, "mean \(mean), std \(std)")
    }

    @Test func calibrationFromThemFindsTheAnchors() throws {
        var site = Site.hall
        let fixed = ["H1", "H4", "H13"]   // three hall corners
        for i in site.anchors.indices where !fixed.contains(site.anchors[i].id) {
            site.anchors[i].position.x += 0.8; site.anchors[i].position.y -= 0.6
        }
        let events = Simulator.anchorRanges(site: Site.hall, perPair: 4, maxRange: 40, seed: 5).map(Event.ranging)
        var input = SurveyInput(bytes: [])
        input.events = events
        var options = CalibrationOptions(dimensions: 2)
        options.fixed = fixed
        let result = try Calibration.solve(site: site, ranges: input.anchorRanges(site: site), options: options)
        for c in result.anchors {
            let truth = try #require(Site.hall.anchor(c.id)).position
            // Each free anchor to within 0.15 m of its true place (its σ is a few centimetres) after a 1 m misplacement.
            #expect((c.position - truth).horizontalNorm < 0.15, "\(c.id)")
        }
    }
}
