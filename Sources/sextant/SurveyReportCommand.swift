import Foundation
import Positioning
import Survey

/// `sextant survey report`: an accuracy report of a recording against its ground truth.
enum SurveyReportCommand {
    static let about = """
        USAGE: sextant survey report --site FILE --input FILE [--truth FILE] --out DIR

        Runs the positioning engine over a recording (as 'sextant replay' would) and writes a report
        into DIR: index.html with the summary figures and tables, and its figures, each as PNG and SVG.

        With --truth, the positions are compared with the ground truth (as 'sextant evaluate' does):
        the error over time and its CDF, the tracks against the truth, and the per-anchor range
        residuals against the true positions (measured − true distance: bias ± std).

        Without --truth (a field recording), the report shows what can be known without it: the
        estimated tracks, the range residuals against the estimated positions, the engine's predicted
        1-σ accuracy over time, and each anchor's health (normalised innovation RMS, rejected and
        blocked ranges, learned bias). Both kinds of report have these last figures.
        """

    static let site = SurveyIO.site
    static let input = Option.text("input", "FILE", help: "ingest lines")
    static let truth = Option.text("truth", "FILE", help: "ground truth CSV (t_ns,site,tag,x,y,z); optional")
    static let out = Option.text("out", "DIR", help: "the report directory (created if missing)")
    static let warmup = Option.number("warmup", "S", default: 2, in: 0...86_400, help: "seconds skipped at the start of every tag")
    static let noBiasLearning = Option.flag("no-bias-learning", help: "do not learn anchor range biases online")
    static let spec = CommandSpec("survey report", about: about,
                                  options: [site.spec, input.spec, truth.spec, out.spec, warmup.spec, noBiasLearning.spec])
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let sitePath = try a.required(site), inputPath = try a.required(input)
        let dir = try a.required(out)
        var options = Evaluation.Options()
        options.warmup = a[warmup]
        var config = EngineConfig()
        config.learnBias = !a[noBiasLearning]
        let site = try loadSite(sitePath)
        var truth: [TruthSample] = []
        if let truthPath = a[Self.truth] {
            truth = try SurveyIO.readTruth(truthPath)
            guard truth.contains(where: { $0.site == site.id }) else {
                throw CommandError.data("survey report: \(truthPath) has no truth for site '\(site.id)'")
            }
        }
        let input = try SurveyIO.readInput(inputPath, command: "survey report")
        guard input.events.contains(where: { $0.site == site.id }) else {
            throw CommandError.data("survey report: no line of site '\(site.id)' in \(inputPath)")
        }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw CommandError(message: "survey report: cannot create '\(dir)': \(error.localizedDescription)", code: .cantCreate)
        }
        let progress = ProgressLine("report: positioning")
        let report = AccuracyReport(site: site, events: input.events, truth: truth, config: config, options: options,
                                    progress: progress.update)
        progress.finish()

        let figures = ReportFigures.figures(report)
        for figure in figures {
            for format in [ImageFormat.png, .svg] {
                let bytes = try SurveyIO.render("survey report") { () throws(RenderError) in
                    try ReportFigures.render(figure, format: format)
                }
                try SurveyIO.write(bytes, to: dir + "/" + figure.name + "." + format.rawValue)
            }
        }
        try SurveyIO.write(ReportHTML.page(report, figures: figures.map { ($0.name + ".svg", $0.caption) }), to: dir + "/index.html")
        if report.hasTruth {
            print(report.table, terminator: "")
        } else {
            let (median, p95) = report.predictedSigma
            print("\(site.id): no ground truth; \(report.events) events, \(report.refused) refused")
            for (tag, n) in report.positionsPerTag { print("  \(tag): \(n) positions") }
            print("predicted 1-σ: median \(TextFormat.fixed(median, 3)) m, 95th percentile \(TextFormat.fixed(p95, 3)) m")
            print("anchor   lines  rejected  blocked  innovation RMS  residual bias (m)  residual std (m)")
            for h in report.anchors {
                let n = Double(max(h.health.ranges, 1))
                let res = report.residuals.first { $0.anchor == h.anchor }
                var line = TextFormat.pad(h.anchor, 8) + TextFormat.pad(String(h.health.lines), 6, right: true)
                line += TextFormat.pad(TextFormat.percent(Double(h.health.rejected) / n) + " %", 10, right: true)
                line += TextFormat.pad(TextFormat.percent(Double(h.health.blocked) / n) + " %", 9, right: true)
                line += TextFormat.pad(h.health.innovationRMS.map { TextFormat.fixed($0, 2) } ?? "-", 16, right: true)
                line += TextFormat.pad(res.map { TextFormat.fixed($0.bias, 3) } ?? "-", 19, right: true)
                line += TextFormat.pad(res.map { TextFormat.fixed($0.std, 3) } ?? "-", 18, right: true)
                print(line)
            }
        }
        print("report written to \(dir)/index.html (figures as PNG and SVG)")
    }
}
