import Foundation
import Positioning
import Store
import Wire

/// `sextant history`: positions (or recorded raw lines) from the data directory.
enum HistoryCommand {
    static let about = """
        USAGE: sextant history --site ID [--tag T]... [--from TIME] [--to TIME] [--format csv|lp|geojson]
               sextant history --site ID --last [--format csv|lp|geojson]
               sextant history --site ID --measurements [--from TIME] [--to TIME]
               sextant history --prune --full-days N --keep-days M [--batch ROWS]

        Exports the position history the live service stored, one tag after another, each in time order:
          csv      a header 't_ns,site,tag,x,y,z,sigma,vx,vy,vz,cxx,cxy,cyy,cxz,cyz,czz,anchors,motion',
                   then one row per position (the default)
          lp       the 'position' output lines, as on the feed (InfluxDB and 'sextant evaluate
                   --positions' read them)
          geojson  a FeatureCollection with one LineString per tag (x, y, z in the site frame, metres),
                   its vertices' times in the property 't_ns'
        --last gives each tag's last known position instead. --measurements writes the raw ingest
        lines recorded with 'serve --record-measurements' (line protocol, in time order), which
        'sextant replay' takes as input.
        --prune applies retention to every site: positions keep their full rate for --full-days,
        are thinned to one per tag per second until --keep-days, and are deleted after; recorded raw
        lines are kept --full-days, zone events --keep-days, each tag's last position always. It
        deletes in transactions of at most --batch rows (default \(batch.defaultValue)), so it may run while the
        service writes (for example daily from cron); freed space is reused, the file does not shrink.
        TIME is ISO 8601 with an offset (2026-11-30T14:05:00Z, 2026-11-30T15:05:00.250+01:00) or Unix
        nanoseconds. --from is inclusive, --to exclusive.
        """

    static let site = Option.text("site", "ID", help: "the site (required, but with --prune)")
    static let tag = Option.list("tag", "T", help: "only this tag (default: every tag of the site)")
    static let format = Option.text("format", "F", default: "csv", help: "csv, lp or geojson")
    static let last = Option.flag("last", help: "the last known position of every tag")
    static let measurements = Option.flag("measurements", help: "the recorded raw ingest lines")
    static let output = Option.text("output", "FILE", default: "-", help: "write there ('-': standard output)")
    static let prune = Option.flag("prune", help: "apply retention (see above); --site is then not needed")
    static let fullDays = Option.number("full-days", "N", default: 7, in: 0...36_500, help: "with --prune: days at full rate")
    static let keepDays = Option.number("keep-days", "M", default: 90, in: 0...36_500,
                                        help: "with --prune: days kept at all (at least --full-days)")
    static let batch = Option.integer("batch", "ROWS", default: 10_000, in: 1...10_000_000,
                                      help: "with --prune: rows per transaction")
    static let spec = CommandSpec("history", about: about, options: [
        site.spec, tag.spec, StoreOptions.from.spec, StoreOptions.to.spec, format.spec, last.spec, measurements.spec, output.spec,
        prune.spec, fullDays.spec, keepDays.spec, batch.spec,
    ] + StoreOptions.specs)
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        if a[prune] { return try prune(a) }
        let site = try a.required(Self.site)
        let (from, to) = try StoreOptions.range(a)
        let format = a[Self.format]
        guard ["csv", "lp", "geojson"].contains(format) else {
            throw CommandError.usage("history: --format must be csv, lp or geojson, got '\(format)'")
        }
        try a.noOperands()
        guard !(a[last] && a[measurements]) else {
            throw CommandError.usage("history: --last and --measurements exclude each other")
        }
        if a[last], from != nil || to != nil {
            throw CommandError.usage("history: --last takes no --from or --to (it is each tag's newest position)")
        }
        let store = try StoreOptions.open(a)
        try StoreOptions.requireSite(site, in: store, command: "history")
        let sink = try OutputSink(a[output])
        if a[measurements] {
            guard !a.given(Self.format) || format == "lp" else {
                throw CommandError.usage("history: --measurements writes line protocol only")
            }
            try store.forEachMeasurementPage(site: site, from: from, to: to) { page in
                for m in page { try sink.write { $0.append(contentsOf: m.line); $0.append(10) } }
            }
            try sink.flush()
            return
        }
        if format == "csv" { try sink.write(PositionExport.csvHeader) }
        if a[last] {
            var last = try store.lastPositions(site: site)
            if !a[tag].isEmpty {
                let wanted = Set(a[tag])
                last = last.filter { wanted.contains($0.tag) }
            }
            try write(last, format: format, to: sink)
            try sink.flush()
            return
        }
        var tags = a[tag]
        if tags.isEmpty { tags = try store.tags(site: site).map(\.tag) }
        var features: [String] = []
        for tag in tags {
            var track: [PositionEstimate] = []
            try store.forEachPositionPage(site: site, tag: tag, from: from, to: to) { page in
                if format == "geojson" { track += page } else { try write(page, format: format, to: sink) }
            }
            if !track.isEmpty { features.append(PositionExport.geoJSONFeature(track)) }
        }
        if format == "geojson" { try sink.write(PositionExport.geoJSONCollection(features)) }
        try sink.flush()
    }

    private static func prune(_ a: Arguments) throws {
        let fullDays = a[Self.fullDays], keepDays = a[Self.keepDays]
        guard keepDays >= fullDays else { throw CommandError.usage("history: --keep-days must be at least --full-days") }
        let batch = a[Self.batch]
        let day = 86_400e9
        let policy = RetentionPolicy(fullRate: Nanoseconds(fullDays * day), keep: Nanoseconds(keepDays * day))
        let now = Nanoseconds(Date().timeIntervalSince1970 * 1e9)
        let r = try StoreOptions.open(a).applyRetention(policy, now: now, batchSize: batch)
        print("pruned: \(r.positionsDeleted) positions deleted, \(r.positionsThinned) thinned to 1 Hz, "
              + "\(r.measurementsDeleted) raw lines, \(r.zoneEventsDeleted) zone events, in \(r.batches) transactions")
    }

    private static func write(_ positions: [PositionEstimate], format: String, to sink: OutputSink) throws {
        switch format {
        case "csv":
            for p in positions { try sink.write { PositionExport.appendCSV(p, to: &$0) } }
        case "lp":
            for p in positions { try sink.write { OutputEncoder.append(.position(p), to: &$0) } }
        default:
            try sink.write(PositionExport.geoJSONCollection(positions.map { PositionExport.geoJSONFeature([$0]) }))
        }
    }
}
