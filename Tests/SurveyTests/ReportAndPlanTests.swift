import Testing
import Numerics
import Positioning
@testable import Survey

/// The accuracy report (with and without truth), its figures, and the anchor planner.
struct ReportAndPlanTests {
    static let site = Site.demoWarehouse
    static let run = Simulator(site: site, config: SimulationConfig(tags: 2, duration: 20, seed: 4)).run()
    static let withTruth = AccuracyReport(site: site, events: run.0, truth: run.1)
    static let withoutTruth = AccuracyReport(site: site, events: run.0)

    @Test func reportEvaluatesAndDraws() throws {
        let report = Self.withTruth
        let m = try #require(report.metrics)
        #expect(report.hasTruth && m.count > 100 && m.rmse < 0.5)
        #expect(!report.errors.isEmpty && report.residuals.count == 12)   // 11 anchors, D1 with both technologies
        #expect(ReportFigures.figures(report).map(\.name)
                == ["error-time", "error-cdf", "tracks", "residuals", "predicted", "anchor-health"])
        let html = String(decoding: ReportHTML.page(report, figures: [("tracks.svg", "Tracks")]), as: UTF8.self)
        #expect(html.contains("<img src=\"tracks.svg\"") && html.contains("RMSE") && html.contains("Anchor health"))
    }

    @Test func reportWithoutTruth() throws {
        let report = Self.withoutTruth
        #expect(!report.hasTruth && report.metrics == nil && report.errors.isEmpty)
        // Predicted accuracy: one σ per position, all finite and of the site's scale (the engine's
        // σ here is centimetres to decimetres; 1 m would mean it was not read from the covariance).
        #expect(report.predicted.count == report.estimated.values.map(\.count).reduce(0, +) && report.predicted.count > 100)
        let (median, p95) = report.predictedSigma
        #expect(median > 0.01 && median < 0.3 && p95 >= median && p95 < 1)
        // Anchor health for every anchor, from its lines.
        #expect(report.anchors.map(\.anchor) == Self.site.anchors.map(\.id))
        #expect(report.anchors.allSatisfy { $0.health.lines > 0 && $0.health.innovationRMS != nil })
        // Residuals against the estimated tracks: every anchor and technology, and small for UWB (the
        // simulated ranges carry no bias beyond the site's calibrated one, which the engine removes;
        // 0.1 m is the UWB noise, a bound no unbiased Huber mean of hundreds of ranges comes near).
        #expect(report.residuals.count == 12)
        for r in report.residuals where r.technology == .uwb { #expect(abs(r.bias) < 0.1, "\(r.anchor)") }
        #expect(ReportFigures.figures(report).map(\.name) == ["tracks", "residuals", "predicted", "anchor-health"])
        let html = String(decoding: ReportHTML.page(report, figures: []), as: UTF8.self)
        #expect(html.contains("without ground truth") && html.contains("predicted 1-σ, median"))
    }

    @Test func everyReportFigureRendersAtItsSizeWithUnitsAndFreeLabels() throws {
        for report in [Self.withTruth, Self.withoutTruth] {
            for f in ReportFigures.figures(report) {
                let png = try #require(DecodedPNG(try ReportFigures.render(f, format: .png)), "\(f.name)")
                #expect(png.width == Int(f.size.0.rounded(.up)) && png.height == Int(f.size.1.rounded(.up)), "\(f.name)")
                #expect(parseSVGRoot(try ReportFigures.render(f, format: .svg))?.name == "svg", "\(f.name)")
                let canvas = try Canvas(width: f.size.0, height: f.size.1, format: .png)
                f.draw(canvas)
                let texts = canvas.labels.map(\.text)
                // Both axes titled, with a unit in brackets (or the category axis "Anchor").
                let titled = texts.filter { t in ["(m)", "(s)", "(%)", "(σ)"].contains { t.hasSuffix($0) } }
                #expect(titled.count + (texts.contains("Anchor") ? 1 : 0) >= 2, "\(f.name): \(texts)")
                #expect(texts.contains("Tags") || texts.contains("Anchors") || texts.contains { $0.hasPrefix("All tags") },
                        "\(f.name): no legend")
                let violations = layoutViolations(canvas)
                #expect(violations.isEmpty, "\(f.name): \(violations.prefix(3))")
            }
        }
    }

    static func sparseSite() -> Site {
        let s = Site.demoWarehouse
        return Site(id: s.id, name: s.name, dimensions: 2, tagHeight: 1.2, bounds: s.bounds,
                    anchors: s.anchors.filter { ["U1", "U2", "C1", "C4", "U5"].contains($0.id) }, zones: s.zones)
    }

    @Test func planImprovesWorstCoverage() throws {
        let site = Self.sparseSite()
        var options = PlanOptions(anchors: 2)
        options.resolution = 2
        let (planned, steps, _) = Planner.plan(site, options: options)
        #expect(steps.count == 2 && planned.anchors.count == 7)
        let first = try #require(steps.first), last = try #require(steps.last)
        #expect(last.after.p95 < first.before.p95)
        #expect(Planner.cost(CoverageMap(site: planned, resolution: 2).cells) < Planner.cost(CoverageMap(site: site, resolution: 2).cells))
        // Suggested anchors are on the mounting height of the existing ones (median 4 m) and inside the bounds.
        for s in steps { #expect(s.anchor.position.z == 4 && site.bounds.contains(s.anchor.position)) }
    }

    @Test func planStopsAtTheTarget() throws {
        let site = Self.sparseSite()
        var options = PlanOptions(anchors: 2)
        options.resolution = 2
        // The figure after each step of the plan without a target. The greedy steps do not depend on
        // the target, so with room for three anchors, a target between the figures after the first
        // and the second anchor must stop after the second.
        let free = Planner.plan(site, options: options)
        var figures: [Double] = []
        var current = site
        for s in free.steps {
            current = Planner.adding(s.anchor, to: current)
            figures.append(Planner.worstSigma(CoverageMap(site: current, resolution: 2).cells))
        }
        #expect(figures.count == 2 && figures[0] > figures[1])
        options.anchors = 3
        options.target = (figures[0] + figures[1]) / 2
        let stopped = Planner.plan(site, options: options)
        #expect(stopped.steps.count == 2, "target \(options.target!) m, figures \(figures)")
        #expect(stopped.worstSigma <= options.target! && stopped.worstSigma == figures[1])
        // A target the site already meets adds nothing; one beyond reach adds every anchor allowed.
        options.target = Planner.worstSigma(CoverageMap(site: site, resolution: 2).cells) + 0.001
        #expect(Planner.plan(site, options: options).steps.isEmpty)
        options.anchors = 1
        options.target = 0.001
        let unreachable = Planner.plan(site, options: options)
        #expect(unreachable.steps.count == 1 && unreachable.worstSigma > 0.001)
    }
}
