import Foundation
import Positioning
import Pipeline
import Server
import Wire

/// `sextant replay`: positions a recorded ingest stream.
enum ReplayCommand {
    static let about = """
        USAGE: sextant replay --site FILE [--site FILE ...] [--input FILE|-] [--output FILE|-]

        Reads ingest lines (InfluxDB line protocol: ranging, motion, removed, session; each with a Unix
        nanosecond timestamp, in time order), runs the positioning engine, and writes position, proximity
        and removed lines. A summary goes to standard error at the end: lines read, positions written,
        rejected lines by reason (with the first rejected lines and why).
        """

    static let site = Option.list("site", "FILE", help: "a site map (JSON)")
    static let input = Option.text("input", "FILE", default: "-", help: "ingest lines ('-': standard input)")
    static let output = Option.text("output", "FILE", default: "-", help: "output lines ('-': standard output)")
    /// The engine's settings, declared once with `serve`'s (`ServiceConfig.settings`).
    static let engineSettings = ["outputInterval", "tagTimeout", "maxLateness", "learnBias"].map { ServiceConfig.setting(key: $0)! }
    static let precision = Option<TimestampPrecision>.choice("precision", "UNIT", TimestampPrecision.allCases.map { ($0.rawValue, $0) },
                                                             default: "ns", help: "the unit of the timestamps: ns, us, ms or s")
    static let smooth = Option.flag("smooth", help: """
        write the fixed-interval (Rauch–Tung–Striebel) smoothed trajectory instead of the live filter's \
        positions: position lines only, at the same times; holds the run in memory (about 0.4 KB per ranging line)
        """)
    static let anchors = Option.flag("anchors", help: """
        also print each anchor's health at the end (stderr): its lines, how long before the end it was \
        last heard, the shares of its ranges rejected and taken for blocked paths, its normalised \
        innovation RMS (1 or less; an anchor whose map position is wrong shows several times the \
        others'), and its learned bias
        """)
    static let spec = CommandSpec("replay", about: about, options: [site.spec, input.spec, output.spec]
                                  + engineSettings.map { OptionSpec(setting: $0, showingKey: false) } + [precision.spec, smooth.spec, anchors.spec])
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let sitePaths = a[site]
        guard !sitePaths.isEmpty else { throw CommandError.usage("replay: --site is required (see 'sextant replay --help')") }
        var settings = ServiceConfig()
        for setting in engineSettings {
            let flag = OptionSpec(setting: setting, showingKey: false)
            if a.given(flag) { try setting.apply(flagValues: a.texts(flag), to: &settings) }
        }
        var config = EngineConfig()
        config.outputInterval = settings.outputInterval
        config.tagTimeout = settings.tagTimeout
        config.maxLateness = settings.maxLateness
        config.learnBias = settings.learnBias
        let smooth = a[Self.smooth]
        config.recordForSmoothing = smooth
        let sites = try sitePaths.map(loadSite)
        let input = a[Self.input], outputPath = a[output]

        let sink = try OutputSink(outputPath)
        var pipeline = Pipeline(sites: sites, config: config, timestamps: .requireTimestamp, precision: a[precision])
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
        if a[anchors] { printError(String(anchorTable(pipeline.engine.anchorReports()).dropLast())) }
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
