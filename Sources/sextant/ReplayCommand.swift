import Foundation
import Positioning
import Pipeline
import Wire

/// `sextant replay`: positions a recorded ingest stream.
enum ReplayCommand {
    static let help = """
        USAGE: sextant replay --site FILE [--site FILE ...] [--input FILE|-] [--output FILE|-]

        Reads ingest lines (InfluxDB line protocol: ranging, motion, removed, session; each with a Unix
        nanosecond timestamp, in time order), runs the positioning engine, and writes position, proximity
        and removed lines. A summary goes to standard error at the end: lines read, positions written,
        rejected lines by reason (with the first rejected lines and why).

        OPTIONS:
          --site FILE            a site map (JSON); repeat for several sites
          --input FILE           ingest lines; '-' or absent: standard input
          --output FILE          output lines; '-' or absent: standard output
          --output-interval S    at most one line per tag every S seconds (default 0.1; 0: every update)
          --tag-timeout S        remove a tag after S seconds without measurements (default 10)
          --max-lateness S       refuse as 'late' a ranging line more than S seconds older than the
                                 latest line of its tag (default 1); a file must be in time order
                                 within that
          --precision UNIT       the unit of the timestamps: ns (default), us, ms or s
          --no-bias-learning     do not learn anchor range biases online
          --smooth               write the fixed-interval (Rauch–Tung–Striebel) smoothed trajectory
                                 instead of the live filter's positions: position lines only, at the
                                 same times; holds the run in memory (about 0.4 KB per ranging line)
          --anchors              also print each anchor's health at the end (stderr): its lines, how
                                 long before the end it was last heard, the shares of its ranges
                                 rejected and taken for blocked paths, its normalised innovation RMS
                                 (1 or less; an anchor whose map position is wrong shows several
                                 times the others'), and its learned bias
          -h, --help             show this help
        """

    static func run(_ argv: [String]) throws {
        let a = try Arguments(argv, command: "replay",
                              options: ["site", "input", "output", "output-interval", "tag-timeout", "max-lateness",
                                        "precision"],
                              switches: ["no-bias-learning", "smooth", "anchors"])
        if a.wantsHelp { print(help); return }
        let sitePaths = a.strings("site")
        guard !sitePaths.isEmpty else { throw CommandError.usage("replay: --site is required (see 'sextant replay --help')") }
        var config = EngineConfig()
        config.outputInterval = try a.double("output-interval", default: config.outputInterval, in: 0...3600)
        config.tagTimeout = try a.double("tag-timeout", default: config.tagTimeout, in: 0.1...86_400)
        config.maxLateness = try a.double("max-lateness", default: config.maxLateness, in: 0...3600)
        config.learnBias = !a.flag("no-bias-learning")
        let smooth = a.flag("smooth")
        config.recordForSmoothing = smooth
        let sites = try sitePaths.map(loadSite)
        let input = a.string("input") ?? "-", outputPath = a.string("output") ?? "-"

        let sink = try OutputSink(outputPath)
        var precision = TimestampPrecision.ns
        if let v = a.string("precision") {
            guard let p = TimestampPrecision(rawValue: v) else {
                throw CommandError.usage("replay: --precision must be \(TimestampPrecision.names), got '\(v)'")
            }
            precision = p
        }
        var pipeline = Pipeline(sites: sites, config: config, timestamps: .requireTimestamp, precision: precision)
        let started = Date()
        if smooth {
            var discarded: [UInt8] = []
            try readChunks(input) { chunk in
                pipeline.feed(chunk, output: &discarded)
                discarded.removeAll(keepingCapacity: true)
            }
            pipeline.finish(output: &discarded)
            let smoothed = pipeline.engine.trackers.keys.sorted().flatMap {
                pipeline.engine.trackers[$0]!.smoothedEstimates()
            }
            for e in smoothed { try sink.write { OutputEncoder.append(.position(e), to: &$0) } }
        } else {
            try readChunks(input) { chunk in
                try sink.write { pipeline.feed(chunk, output: &$0) }
            }
            try sink.write { pipeline.finish(output: &$0) }
        }
        try sink.flush()
        let seconds = Date().timeIntervalSince(started)
        var summary = "replay: " + pipeline.summary.replacingOccurrences(of: "\n", with: "\nreplay: ")
        summary += "\nreplay: \(String(format: "%.2f", seconds)) s, \(Int(Double(pipeline.linesRead) / max(seconds, 1e-9))) lines/s"
        for m in pipeline.rejectionMessages { summary += "\nreplay: rejected \(m)" }
        if pipeline.rejections.total > pipeline.rejectionMessages.count {
            summary += "\nreplay: … \(pipeline.rejections.total - pipeline.rejectionMessages.count) more rejected lines"
        }
        printError(summary)
        if a.flag("anchors") { printError(String(anchorTable(pipeline.engine.anchorReports()).dropLast())) }
    }

    /// The anchors' health as `sextant status --anchors` prints it, with the silence counted back from
    /// the newest line of each anchor's site.
    static func anchorTable(_ reports: [AnchorReport]) -> String {
        var newest: [String: Nanoseconds] = [:]
        for r in reports where r.health.lines > 0 { newest[r.site] = max(newest[r.site] ?? .min, r.health.lastHeard) }
        var bytes: [UInt8] = []
        for r in reports {
            let silent = r.health.lines > 0 ? newest[r.site].map { Double($0 - r.health.lastHeard) * 1e-9 } : nil
            OutputEncoder.appendAnchorHealth(r, silentSeconds: silent, time: newest[r.site] ?? 0, to: &bytes)
        }
        return StatusCommand.anchorTable(String(decoding: bytes, as: UTF8.self))
    }
}
