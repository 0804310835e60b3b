import Testing
import Numerics
import Positioning
@testable import Survey

/// The accuracy report and the anchor planner, end to end on small runs.
struct ReportAndPlanTests {
    @Test func reportEvaluatesAndDraws() throws {
        let site = Site.demoWarehouse
        let (events, truth) = Simulator(site: site, config: SimulationConfig(tags: 2, duration: 20, seed: 4)).run()
        let report = AccuracyReport(site: site, events: events, truth: truth)
        let m = try #require(report.metrics)
        #expect(m.count > 100 && m.rmse < 0.5)
        #expect(!report.errors.isEmpty && report.residuals.count == 12)   // 11 anchors, D1 with both technologies
        var svg = SVGDocument(width: ReportFigures.size.0, height: ReportFigures.size.1)
        ReportFigures.errorCDF(report, on: &svg)
        #expect(String(decoding: svg.bytes(), as: UTF8.self).contains("Error CDF"))
        var image = Raster(width: 900, height: 700)
        ReportFigures.trackMap(report, on: &image)
        #expect(try PNGCodec.decode(try PNGCodec.encode(image)) == image)
        let html = String(decoding: ReportHTML.page(report, figures: [("tracks.svg", "Tracks")]), as: UTF8.self)
        #expect(html.contains("<img src=\"tracks.svg\"") && html.contains("RMSE"))
    }

    @Test func planImprovesWorstCoverage() throws {
        var site = Site.demoWarehouse
        site = Site(id: site.id, name: site.name, dimensions: 2, tagHeight: 1.2, bounds: site.bounds,
                    anchors: site.anchors.filter { ["U1", "U2", "C1", "C4", "U5"].contains($0.id) }, zones: site.zones)
        var options = PlanOptions(anchors: 2)
        options.resolution = 2
        let (planned, steps) = Planner.plan(site, options: options)
        #expect(steps.count == 2 && planned.anchors.count == 7)
        let first = try #require(steps.first), last = try #require(steps.last)
        #expect(last.after.p95 < first.before.p95)
        #expect(Planner.cost(CoverageMap(site: planned, resolution: 2).cells) < Planner.cost(CoverageMap(site: site, resolution: 2).cells))
        // Suggested anchors are on the mounting height of the existing ones (median 4 m) and inside the bounds.
        for s in steps { #expect(s.anchor.position.z == 4 && site.bounds.contains(s.anchor.position)) }
    }
}
