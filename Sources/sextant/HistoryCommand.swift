import Foundation
import Positioning
import Store
import Wire

/// `sextant history`: positions (or recorded raw lines) from the data directory.
enum HistoryCommand {
    static let help = """
        USAGE: sextant history --site ID [--tag T]... [--from TIME] [--to TIME] [--format csv|lp|geojson]
               sextant history --site ID --last [--format csv|lp|geojson]
               sextant history --site ID --measurements [--from TIME] [--to TIME]
               sextant history --site ID --inside WKT [--from TIME] [--to TIME] --database URL
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
        'sextant replay' takes as input. --inside gives the positions inside a polygon (WKT in the site
        frame, metres: 'POLYGON((0 0, 10 0, 10 5, 0 5, 0 0))', boundary included), ordered by tag then
        time: who was there, and when. It needs PostgreSQL with PostGIS (docs/storage.md).
        --prune applies retention to every site: positions keep their full rate for --full-days,
        are thinned to one per tag per second until --keep-days, and are deleted after; recorded raw
        lines are kept --full-days, zone events --keep-days, each tag's last position always. It
        deletes in transactions of at most --batch rows (default 10000), so it may run while the
        service writes (for example daily from cron); freed space is reused, the file does not shrink.
        TIME is ISO 8601 with an offset (2026-11-30T14:05:00Z, 2026-11-30T15:05:00.250+01:00) or Unix
        nanoseconds. --from is inclusive, --to exclusive.

        OPTIONS:
          --site ID        the site (required)
          --tag T          only this tag (repeatable; default: every tag of the site)
          --from TIME      start, inclusive
          --to TIME        end, exclusive
          --format F       csv (default), lp or geojson
          --last           the last known position of every tag
          --measurements   the recorded raw ingest lines
          --inside WKT     only positions inside this polygon (PostgreSQL with PostGIS)
          --output FILE    write there instead of standard output
          --prune          apply retention (see above); --site is then not needed
          --full-days N    with --prune: days at full rate (default 7)
          --keep-days M    with --prune: days kept at all (default 90; at least --full-days)
          --batch ROWS     with --prune: rows per transaction (default 10000)
          --data-dir DIR   data directory (default ./sextant-data)
          --database URL   read PostgreSQL instead (postgres://user@host:port/db)
          -h, --help       show this help
        """

    static func run(_ argv: [String]) throws {
        let a = try Arguments(argv, command: "history", options: ["site", "tag", "from", "to", "format", "output", "data-dir", "database",
                                                                    "inside", "full-days", "keep-days", "batch"],
                              switches: ["last", "measurements", "prune"])
        if a.wantsHelp { print(help); return }
        if a.flag("prune") { return try prune(a) }
        let site = try a.required("site")
        let (from, to) = try StoreOptions.range(a)
        let format = a.string("format") ?? "csv"
        guard ["csv", "lp", "geojson"].contains(format) else {
            throw CommandError.usage("history: --format must be csv, lp or geojson, got '\(format)'")
        }
        guard a.positional.isEmpty else { throw CommandError.usage("history: unexpected argument '\(a.positional[0])'") }
        guard !(a.flag("last") && a.flag("measurements")) else {
            throw CommandError.usage("history: --last and --measurements exclude each other")
        }
        if a.flag("last"), from != nil || to != nil {
            throw CommandError.usage("history: --last takes no --from or --to (it is each tag's newest position)")
        }
        let store = try StoreOptions.open(a)
        try StoreOptions.requireSite(site, in: store, command: "history")
        if let polygon = a.string("inside") {
            guard !a.flag("last") && !a.flag("measurements") else {
                throw CommandError.usage("history: --inside takes no --last or --measurements")
            }
            guard let postgres = store as? PostgresHistoryStore else {
                throw CommandError.usage("history: --inside needs --database postgres://… (PostgreSQL with PostGIS)")
            }
            let inside: [PositionEstimate]
            do { inside = try postgres.positionsInside(site: site, polygon: polygon, from: from, to: to) } catch {
                throw CommandError.data("history: --inside: \(error)")
            }
            let sink = try OutputSink(a.string("output") ?? "-")
            if format == "csv" { try sink.write(PositionExport.csvHeader) }
            try write(inside, format: format, to: sink)
            try sink.flush()
            return
        }
        let sink = try OutputSink(a.string("output") ?? "-")
        if a.flag("measurements") {
            guard a.string("format") == nil || format == "lp" else {
                throw CommandError.usage("history: --measurements writes line protocol only")
            }
            try store.forEachMeasurementPage(site: site, from: from, to: to, pageSize: 50_000) { page in
                for m in page { try sink.write { $0.append(contentsOf: m.line); $0.append(10) } }
            }
            try sink.flush()
            return
        }
        if format == "csv" { try sink.write(PositionExport.csvHeader) }
        if a.flag("last") {
            var last = try store.lastPositions(site: site)
            if !a.strings("tag").isEmpty {
                let wanted = Set(a.strings("tag"))
                last = last.filter { wanted.contains($0.tag) }
            }
            try write(last, format: format, to: sink)
            try sink.flush()
            return
        }
        var tags = a.strings("tag")
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
        let fullDays = try a.double("full-days", default: 7, in: 0...36_500)
        let keepDays = try a.double("keep-days", default: 90, in: 0...36_500)
        guard keepDays >= fullDays else { throw CommandError.usage("history: --keep-days must be at least --full-days") }
        let batch = try a.int("batch", default: 10_000, in: 1...10_000_000)
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
