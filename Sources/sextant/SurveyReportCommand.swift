import Foundation
import Positioning
import Survey

/// `sextant survey report`: an accuracy report of a recording against its ground truth.
enum SurveyReportCommand {
    static let help = """
        USAGE: sextant survey report --site FILE --input FILE --truth FILE --out DIR

        Runs the positioning engine over a recording (as 'sextant replay' would), compares the positions
        with the ground truth (as 'sextant evaluate' does) and writes a report into DIR: the error over
        time, the error CDF, the tracks against the truth on the site map, and the per-anchor range
        residuals (measured − true distance: bias ± std), each as SVG and PNG, and index.html showing
        them with the summary figures.

        OPTIONS:
          --site FILE          the site map (JSON)
          --input FILE         ingest lines
          --truth FILE         ground truth CSV (t_ns,site,tag,x,y,z)
          --out DIR            the report directory (created if missing)
          --warmup S           seconds skipped at the start of every tag (default 2)
          --no-bias-learning   do not learn anchor range biases online
          -h, --help           show this help
        """

    static func run(_ argv: [String]) throws {
        let a = try Arguments(argv, command: "survey report", options: ["site", "input", "truth", "out", "warmup"],
                              switches: ["no-bias-learning"])
        if a.wantsHelp { print(help); return }
        let sitePath = try a.required("site"), inputPath = try a.required("input")
        let truthPath = try a.required("truth"), dir = try a.required("out")
        var options = Evaluation.Options()
        options.warmup = try a.double("warmup", default: 2, in: 0...86_400)
        var config = EngineConfig()
        config.learnBias = !a.flag("no-bias-learning")
        let site = try loadSite(sitePath)
        let truth = try SurveyIO.readTruth(truthPath)
        let input = try SurveyIO.readInput(inputPath, command: "survey report")
        guard truth.contains(where: { $0.site == site.id }) else {
            throw CommandError.data("survey report: \(truthPath) has no truth for site '\(site.id)'")
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

        let chart = ReportFigures.size, map = ReportFigures.trackMapLayout(report)
        let figures: [(String, (Double, Double), String, (inout SVGDocument) -> Void, (inout Raster) -> Void)] = [
            ("error-time", chart, "Position error over time, per tag",
             { ReportFigures.errorOverTime(report, on: &$0) }, { ReportFigures.errorOverTime(report, on: &$0) }),
            ("error-cdf", chart, "Cumulative distribution of the position error",
             { ReportFigures.errorCDF(report, on: &$0) }, { ReportFigures.errorCDF(report, on: &$0) }),
            ("tracks", (map.width, map.height), "Estimated tracks against the truth",
             { ReportFigures.trackMap(report, on: &$0) }, { ReportFigures.trackMap(report, on: &$0) }),
            ("residuals", chart, "Range residuals per anchor: bias (bar) ± 1 std (whisker)",
             { ReportFigures.residuals(report, on: &$0) }, { ReportFigures.residuals(report, on: &$0) }),
        ]
        for (name, size, _, drawSVG, drawPNG) in figures {
            var svg = SVGDocument(width: size.0, height: size.1)
            svg.rect(0, 0, size.0, size.1, fill: "#fff")
            drawSVG(&svg)
            try SurveyIO.write(svg.bytes(), to: dir + "/" + name + ".svg")
            var image = Raster(width: Int(size.0), height: Int(size.1))
            drawPNG(&image)
            do { try SurveyIO.write(try PNGCodec.encode(image), to: dir + "/" + name + ".png") } catch let e as PNGError {
                throw CommandError(message: "survey report: \(e)", code: .failure)
            }
        }
        try SurveyIO.write(ReportHTML.page(report, figures: figures.map { ($0.0 + ".svg", $0.2) }), to: dir + "/index.html")
        print(report.table, terminator: "")
        print("report written to \(dir)/index.html (figures as SVG and PNG)")
    }
}
