import Foundation
import Positioning
import Store
import Wire

/// `sextant zones`: entries, exits and dwell time per tag and zone, from the stored zone events.
enum ZonesCommand {
    static let about = """
        USAGE: sextant zones --site ID [--from TIME] [--to TIME] [--data-dir DIR | --config FILE] [--events]

        Reads the zone events the live service stored and prints, per tag and zone: entries, exits,
        the time inside (dwell) and whether the tag is still inside at the end of the range.
        A stay runs from an enter to the next exit. A stay still open at the end counts until --to
        (without --to it adds nothing); an exit with no enter before it in the range counts from
        --from. TIME is ISO 8601 with an offset (2026-11-30T14:05:00Z) or Unix nanoseconds; --from is
        inclusive, --to exclusive.
        """

    static let site = Option.text("site", "ID", help: "the site (required)")
    static let events = Option.flag("events", help: "list the events instead (t_ns, time, tag, zone, event), as CSV")
    static let spec = CommandSpec("zones", about: about,
                                  options: [site.spec, StoreOptions.from.spec, StoreOptions.to.spec, events.spec] + StoreOptions.specs)
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let site = try a.required(Self.site)
        let (from, to) = try StoreOptions.range(a)
        try a.noOperands()
        let store = try StoreOptions.open(a)
        try StoreOptions.requireSite(site, in: store, command: "zones")
        let events = try store.zoneEvents(site: site, from: from, to: to)
        if a[Self.events] {
            print("t_ns,time,tag,zone,event")
            for e in events {
                print("\(e.time),\(TimeText.iso8601(e.time)),\(PositionExport.csvField(e.tag)),\(PositionExport.csvField(e.zone)),"
                      + e.event.rawValue)
            }
            return
        }
        let rows = ZoneDwell.summarize(events, from: from, to: to)
        guard !rows.isEmpty else {
            printError("zones: no zone events for site '\(site)' in the range")
            return
        }
        let table = [["tag", "zone", "entries", "exits", "dwell_s", "inside"]] + rows.map {
            [$0.tag, $0.zone, String($0.entries), String($0.exits), String(format: "%.1f", Double($0.dwell) * 1e-9),
             $0.inside ? "yes" : "no"]
        }
        let widths = (0..<6).map { c in table.map { $0[c].count }.max() ?? 0 }
        for row in table {
            print(row.enumerated().map { c, v in
                c >= 2 && c <= 4 ? String(repeating: " ", count: widths[c] - v.count) + v
                    : v.padding(toLength: widths[c], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
    }
}
