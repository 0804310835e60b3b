import Foundation
import Positioning
import Wire

/// `sextant simulate`: a synthetic ingest stream for a site, with its ground truth.
enum SimulateCommand {
    static let help = """
        USAGE: sextant simulate --site FILE --tags N --duration SECONDS --truth FILE [options]
               sextant simulate --site FILE --anchor-ranges N [--max-range M] [--seed N] [--output FILE]

        Writes a realistic synthetic ingest stream for a site: tags walking and stopping (with motion
        hints), asynchronous ranging of every anchor-tag pair in range, per-technology noise, directions
        inside oriented UWB and aoa anchors' field of view (aoa: directions only), NLOS-biased ranges,
        gross outliers, and dropped sessions. The ground truth goes to the --truth CSV (t_ns,site,tag,x,y,z).

        With --anchor-ranges N, writes anchor-to-anchor ranges instead, for 'sextant survey calibrate':
        N ranging lines per pair of anchors that share a technology and are at most --max-range apart
        (default 40 m), with each measuring anchor's rangeBias and its rangeStd (or the technology's
        default) as noise; the tag of each line is the measured anchor.

        OPTIONS:
          --site FILE        the site map (JSON)
          --tags N           number of tags (1 to 100000)
          --duration S       seconds of simulated time
          --truth FILE       ground-truth CSV to write
          --output FILE      ingest lines ('-' or absent: standard output)
          --seed N           random seed (default 1): the same seed gives the same stream
          --nlos P           probability that a pair is in an NLOS episode (0 to 1, default 0)
          --outliers P       probability that a range is a gross outlier (0 to 1, default 0)
          --rate HZ          ranging rate of each anchor-tag pair (default 5)
          --anchor-ranges N  anchor-to-anchor ranges per pair (1 to 1000) instead of tags
          --max-range M      longest anchor pair that ranges, metres (with --anchor-ranges; default 40)
          --gateway-batch S  each anchor's gateway sends its lines every S seconds (default 0: each line
                             at its own time); lines are written in the order they would arrive, so one
                             tag's lines from different anchors come out of time order by up to S
          -h, --help         show this help
        """

    static func run(_ argv: [String]) throws {
        let a = try Arguments(argv, command: "simulate",
                              options: ["site", "tags", "duration", "truth", "output", "seed", "nlos", "outliers", "rate", "gateway-batch",
                                        "anchor-ranges", "max-range"],
                              switches: [])
        if a.wantsHelp { print(help); return }
        let site = try loadSite(try a.required("site"))
        if a.string("anchor-ranges") != nil { return try anchorRanges(a, site: site) }
        let truthPath = try a.required("truth")
        var config = SimulationConfig(tags: try a.int("tags", default: 0, in: 1...100_000),
                                      duration: try a.double("duration", default: 0, in: 0.1...86_400 * 7))
        guard a.string("tags") != nil else { throw CommandError.usage("simulate: --tags is required") }
        guard a.string("duration") != nil else { throw CommandError.usage("simulate: --duration is required") }
        config.seed = UInt64(try a.int("seed", default: 1, in: 0...Int.max))
        config.nlosProbability = try a.double("nlos", default: 0, in: 0...1)
        config.outlierProbability = try a.double("outliers", default: 0, in: 0...1)
        config.rangingRate = try a.double("rate", default: config.rangingRate, in: 0.01...1000)
        config.gatewayBatch = try a.double("gateway-batch", default: 0, in: 0...60)
        do { try config.validate() } catch { throw CommandError.usage("simulate: \(error)") }

        let out = try OutputSink(a.string("output") ?? "-")
        let truth = try OutputSink(truthPath)
        try truth.write(TruthCSV.header + "\n")
        try out.write("# sextant simulate: site \(site.id), \(config.tags) tags, \(config.duration) s, seed \(config.seed)\n")
        var events = 0
        try Simulator(site: site, config: config).generate(event: { e in
            events += 1
            try out.write { _ = IngestEncoder.append(e, to: &$0) }
        }, truth: { s in
            try truth.write { TruthCSV.appendLine(s, to: &$0) }
        })
        try out.flush()
        try truth.flush()
        printError("simulate: \(events) events for \(config.tags) tags over \(config.duration) s; truth in \(truthPath)")
    }

    /// `--anchor-ranges N`: anchor-to-anchor ranges for calibration.
    static func anchorRanges(_ a: Arguments, site: Site) throws {
        let perPair = try a.int("anchor-ranges", default: 4, in: 1...1000)
        let maxRange = try a.double("max-range", default: 40, in: 0.1...10_000)
        let seed = UInt64(try a.int("seed", default: 1, in: 0...Int.max))
        let ranges = Simulator.anchorRanges(site: site, perPair: perPair, maxRange: maxRange, seed: seed)
        let out = try OutputSink(a.string("output") ?? "-")
        try out.write("# sextant simulate: anchor-to-anchor ranges of site \(site.id), \(perPair) per pair within "
                      + "\(maxRange) m, seed \(seed)\n")
        for r in ranges { try out.write { _ = IngestEncoder.append(.ranging(r), to: &$0) } }
        try out.flush()
        let pairs = Set(ranges.map { [$0.anchor, $0.tag].sorted().joined(separator: "-") }).count
        printError("simulate: \(ranges.count) anchor-to-anchor ranges over \(pairs) pairs of \(site.id)")
    }
}
