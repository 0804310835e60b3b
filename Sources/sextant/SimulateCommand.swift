import Foundation
import Positioning
import Server
import Wire

/// `sextant simulate`: a synthetic ingest stream for a site, with its ground truth.
enum SimulateCommand {
    static let about = """
        USAGE: sextant simulate --site FILE --tags N --duration SECONDS --truth FILE [options]
               sextant simulate --site FILE --anchor-ranges N [--max-range M] [--seed N] [--output FILE]

        Writes a realistic synthetic ingest stream for a site: tags walking and stopping (with motion
        hints), asynchronous ranging of every anchor-tag pair in range, per-technology noise, directions
        inside oriented UWB and aoa anchors' field of view (aoa: directions only), NLOS-biased ranges,
        gross outliers, and dropped sessions. The ground truth goes to the --truth CSV (t_ns,site,tag,x,y,z).

        With --anchor-ranges N, writes anchor-to-anchor ranges instead, for 'sextant survey calibrate':
        N ranging lines per pair of anchors that share a technology and are at most --max-range apart
        (default \(SettingRange.number(maxRange.defaultValue)) m), with each measuring anchor's rangeBias and its rangeStd (or the technology's
        default) as noise; the tag of each line is the measured anchor.
        """

    static let site = Option.text("site", "FILE", help: "the site map (JSON)")
    static let tags = Option.integer("tags", "N", in: 1...100_000, help: "number of tags")
    static let duration = Option.number("duration", "S", in: 0.1...86_400 * 7, help: "seconds of simulated time")
    static let truth = Option.text("truth", "FILE", help: "ground-truth CSV to write")
    static let output = Option.text("output", "FILE", default: "-", help: "ingest lines ('-': standard output)")
    static let seed = Option.integer("seed", "N", default: 1, in: 0...Int.max, help: "random seed: the same seed gives the same stream")
    static let nlos = Option.number("nlos", "P", default: 0, in: 0...1, help: "probability that a pair is in an NLOS episode")
    static let outliers = Option.number("outliers", "P", default: 0, in: 0...1, help: "probability that a range is a gross outlier")
    static let rate = Option.number("rate", "HZ", default: SimulationConfig(tags: 1, duration: 1).rangingRate, in: 0.01...1000,
                                    help: "ranging rate of each anchor-tag pair")
    static let anchorRanges = Option.integer("anchor-ranges", "N", in: 1...1000,
                                             help: "anchor-to-anchor ranges per pair instead of tags")
    static let maxRange = Option.number("max-range", "M", default: 40, in: 0.1...10_000,
                                        help: "longest anchor pair that ranges, metres (with --anchor-ranges)")
    static let gatewayBatch = Option.number("gateway-batch", "S", default: 0, in: 0...60, help: """
        each anchor's gateway sends its lines every S seconds (0: each line at its own time); lines are \
        written in the order they would arrive, so one tag's lines from different anchors come out of \
        time order by up to S
        """)
    static let spec = CommandSpec("simulate", about: about, options: [
        site.spec, tags.spec, duration.spec, truth.spec, output.spec, seed.spec, nlos.spec, outliers.spec, rate.spec,
        anchorRanges.spec, maxRange.spec, gatewayBatch.spec,
    ])
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let site = try loadSite(try a.required(Self.site))
        if let perPair = a[anchorRanges] { return try writeAnchorRanges(a, site: site, perPair: perPair) }
        let truthPath = try a.required(truth)
        var config = SimulationConfig(tags: try a.required(tags), duration: try a.required(duration))
        config.seed = UInt64(a[seed])
        config.nlosProbability = a[nlos]
        config.outlierProbability = a[outliers]
        config.rangingRate = a[rate]
        config.gatewayBatch = a[gatewayBatch]
        do { try config.validate() } catch { throw CommandError.usage("simulate: \(error)") }

        let out = try OutputSink(a[output])
        let truthSink = try OutputSink(truthPath)
        try truthSink.write(TruthCSV.header + "\n")
        try out.write("# sextant simulate: site \(site.id), \(config.tags) tags, \(config.duration) s, seed \(config.seed)\n")
        var events = 0
        try Simulator(site: site, config: config).generate(event: { e in
            events += 1
            try out.write { _ = IngestEncoder.append(e, to: &$0) }
        }, truth: { s in
            try truthSink.write { TruthCSV.appendLine(s, to: &$0) }
        })
        try out.flush()
        try truthSink.flush()
        printError("simulate: \(events) events for \(config.tags) tags over \(config.duration) s; truth in \(truthPath)")
    }

    /// `--anchor-ranges N`: anchor-to-anchor ranges for calibration.
    static func writeAnchorRanges(_ a: Arguments, site: Site, perPair: Int) throws {
        let maxRange = a[Self.maxRange]
        let seed = UInt64(a[Self.seed])
        let ranges = Simulator.anchorRanges(site: site, perPair: perPair, maxRange: maxRange, seed: seed)
        let out = try OutputSink(a[output])
        try out.write("# sextant simulate: anchor-to-anchor ranges of site \(site.id), \(perPair) per pair within "
                      + "\(maxRange) m, seed \(seed)\n")
        for r in ranges { try out.write { _ = IngestEncoder.append(.ranging(r), to: &$0) } }
        try out.flush()
        let pairs = Set(ranges.map { [$0.anchor, $0.tag].sorted().joined(separator: "-") }).count
        printError("simulate: \(ranges.count) anchor-to-anchor ranges over \(pairs) pairs of \(site.id)")
    }
}
