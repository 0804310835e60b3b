import Testing
import Numerics
import Positioning
@testable import Survey

/// Coverage: the bound, the summary, and the check against the engine on a static tag.
struct CoverageTests {
    static let demo = Site.demoWarehouse

    @Test func demoWarehouseIsCoveredEverywhere() {
        let map = CoverageMap(site: Self.demo, resolution: 1)
        #expect(map.columns == 40 && map.rows == 25)
        let s = map.summary
        #expect(s.unfixable == 0)
        #expect(s.under1m == 1)
        #expect(s.median > 0.02 && s.median < 0.2)
    }

    /// On a 3-D site without `tagHeight`, the map is drawn 1.2 m above the floor, or within the site's
    /// tag height range when that excludes 1.2 m; `height` overrides both.
    @Test func defaultHeightRespectsTheTagHeightRange() {
        var site = Site.hall
        #expect(CoverageMap(site: site, resolution: 10).height == 1.2)
        site.tagHeightRange = 2...3
        #expect(CoverageMap(site: site, resolution: 10).height == 2)
        #expect(CoverageMap(site: site, resolution: 10, height: 0.5).height == 0.5)
    }

    /// The bound equals the covariance Multilateration reports for exact observations: one model.
    @Test func boundMatchesMultilaterationCovariance() throws {
        let p = Vec3(8, 6, 1.2)
        let model = CoverageModel()
        let obs = model.observations(site: Self.demo, at: p)
        let fix = try Multilateration.solve(obs, dimensions: 2, height: 1.2, initial: p)
        let cell = model.accuracy(site: Self.demo, at: p)
        // Exact observations: residuals are zero, so no scaling; only LAPACK rounding differs (1e-9 relative).
        #expect(abs(fix.covariance[0] - cell.covXX) < 1e-9 * cell.covXX)
        #expect(abs(fix.covariance[3] - cell.covYY) < 1e-9 * cell.covYY)
    }

    /// Anchors only in one corner: far cells are out of range (no fix), near cells are fine.
    @Test func sparseSiteHasUnfixableCells() throws {
        var site = Self.demo
        site.anchors = site.anchors.filter { ["U1", "C1", "C4"].contains($0.id) }
        let map = CoverageMap(site: site, resolution: 1)
        let far = try #require(map.cell(x: 39.5, y: 24.5))
        #expect(!far.fixable && far.sigma == .infinity)
        let near = try #require(map.cell(x: 5.5, y: 5.5))
        #expect(near.fixable && near.anchorsInRange == 3)
        #expect(map.summary.unfixable > 0)
    }

    /// Four anchors fix a 3-D position with one range to spare, too few to single out a blocked path;
    /// a fifth gives two. The demo warehouse (2-D, many anchors) has two to spare everywhere.
    @Test func fourAnchorRoomCannotSingleOutABlockedPath() {
        var room = Site(id: "room4", name: "Four-anchor room", dimensions: 3, tagHeight: nil,
                        bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(6, 5, 3)),
                        anchors: [Anchor(id: "R1", position: Vec3(0.2, 0.2, 2.8), technologies: [.uwb]),
                                  Anchor(id: "R2", position: Vec3(5.8, 0.2, 0.4), technologies: [.uwb]),
                                  Anchor(id: "R3", position: Vec3(5.8, 4.8, 2.8), technologies: [.uwb]),
                                  Anchor(id: "R4", position: Vec3(0.2, 4.8, 0.4), technologies: [.uwb])],
                        zones: [])
        let four = CoverageMap(site: room, resolution: 1).summary
        #expect(four.unfixable == 0 && four.unidentifiable == four.cells)
        room.anchors.append(Anchor(id: "R5", position: Vec3(3, 0.2, 2.8), technologies: [.uwb]))
        let five = CoverageMap(site: room, resolution: 1).summary
        #expect(five.unfixable == 0 && five.unidentifiable == 0)
        #expect(CoverageMap(site: Self.demo, resolution: 1).summary.unidentifiable == 0)
    }

    /// Two ranging anchors without direction cannot fix a 2-D position (needs three).
    @Test func twoRangeOnlyAnchorsAreNotEnough() {
        var site = Self.demo
        site.anchors = site.anchors.filter { ["U5", "U6"].contains($0.id) }
        let cell = CoverageModel().accuracy(site: site, at: Vec3(20, 5, 1.2))
        #expect(cell.anchorsInRange == 2 && !cell.fixable)
    }

    /// The quality figure: predicted σ against the engine's RMSE on a static tag (bias learning off, as
    /// a static tag gives the learner nothing it can tell apart from the position). Agreement within
    /// 30 % of the predicted horizontal RMSE (√2·σ).
    @Test(arguments: [Vec3(20, 12.5, 1.2), Vec3(6, 4, 1.2), Vec3(33, 20, 1.2), Vec3(10, 18, 1.2)])
    func predictionAgreesWithEngineOnStaticTag(_ p: Vec3) {
        var config = EngineConfig()
        config.learnBias = false
        let o = CoverageValidation.run(site: Self.demo, at: p, duration: 60, config: config)
        print("coverage check at (\(p.x), \(p.y)): predicted σ \(TextFormat.fixed(o.predicted, 4)) m, predicted RMSE "
              + "\(TextFormat.fixed(o.predictedRMSE, 4)) m, engine RMSE \(TextFormat.fixed(o.engineRMSE, 4)) m "
              + "(\(TextFormat.fixed(100 * o.relativeDifference, 1)) %), n = \(o.samples)")
        #expect(o.samples > 400)
        #expect(abs(o.relativeDifference) < 0.30)
        // For the record only: with bias learning on (the default), on a static tag.
        let learning = CoverageValidation.run(site: Self.demo, at: p, duration: 60)
        print("  with bias learning: engine RMSE \(TextFormat.fixed(learning.engineRMSE, 4)) m "
              + "(\(TextFormat.fixed(100 * learning.relativeDifference, 1)) %)")
    }
}
