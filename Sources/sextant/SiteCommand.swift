import Foundation
import Numerics
import Positioning
import Server
import Store

/// `sextant site`: the site maps stored in the data directory.
enum SiteCommand {
    static let about = """
        USAGE: sextant site <action> [--data-dir DIR | --config FILE]

        The site maps in the data directory's database (the ones `sextant serve` serves).

        ACTIONS:
          import FILE|DIR...              validate and store site files (a directory: its *.json files).
                                          Every file is checked first, with the loader's messages (exit
                                          65); nothing is stored if one is refused. Re-importing a site
                                          replaces its map and keeps its history.
          export ID [--format json|geojson] [--output FILE]
                                          the stored map: json (the bytes as imported) or geojson (a
                                          FeatureCollection in the site frame: anchors as Points, zones
                                          as Polygons)
          list                            one line per site: id, dimensions, anchors, zones, tags, name
          show ID                         a site's anchors and zones, and how many tags have history
          remove ID                       delete a map (its history stays)
        """

    static let format = Option.text("format", "F", default: "json", help: "with export: json or geojson")
    static let output = Option.text("output", "FILE", default: "-", help: "with export: write there ('-': standard output)")
    static let spec = CommandSpec("site", about: about, options: [format.spec, output.spec] + StoreOptions.specs)
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        guard let action = a.positional.first else { throw CommandError.usage("site: an action is required\n\n" + help) }
        let operands = Array(a.positional.dropFirst())
        switch action {
        case "import":
            guard !operands.isEmpty else { throw CommandError.usage("site import: give at least one FILE or DIR") }
            try importSites(operands, a)
        case "export":
            try export(id: try single(operands, action), a)
        case "list":
            guard operands.isEmpty else { throw CommandError.usage("site list: takes no argument") }
            try list(a)
        case "show":
            try show(id: try single(operands, action), a)
        case "remove":
            let id = try single(operands, action)
            guard try StoreOptions.open(a).removeSite(id: id) else { throw unknown(id) }
            print("removed site '\(id)' (its history is kept)")
        default:
            throw CommandError.usage("site: unknown action '\(action)' (import, export, list, show, remove)")
        }
    }

    private static func single(_ operands: [String], _ action: String) throws(CommandError) -> String {
        guard operands.count == 1 else { throw .usage("site \(action): give exactly one site ID") }
        return operands[0]
    }

    private static func unknown(_ id: String) -> CommandError {
        CommandError(message: "site: no site '\(id)' in the database (see 'sextant site list')", code: .noInput)
    }

    private static func importSites(_ paths: [String], _ a: Arguments) throws {
        let files: [SiteFile]
        do {
            files = try SiteImport.read(paths)
        } catch {
            throw CommandError(message: error.message, code: error.unreadable ? .noInput : .dataError)
        }
        guard !files.isEmpty else { throw CommandError(message: "site import: no *.json site files found", code: .noInput) }
        var seen: [String: String] = [:]
        for f in files {
            if let other = seen[f.site.id] {
                throw CommandError.data("site import: '\(f.path)' and '\(other)' both define site '\(f.site.id)'")
            }
            seen[f.site.id] = f.path
        }
        let store = try StoreOptions.open(a, create: true)
        for f in files {
            let existed = try store.siteJSON(id: f.site.id) != nil
            try store.saveSite(f.site, json: f.json)
            print("\(existed ? "updated" : "imported") site '\(f.site.id)' from \(f.path): "
                  + "\(f.site.anchors.count) anchors, \(f.site.zones.count) zones")
        }
    }

    private static func export(id: String, _ a: Arguments) throws {
        let format = a[Self.format]
        guard format == "json" || format == "geojson" else {
            throw CommandError.usage("site export: --format must be json or geojson, got '\(format)'")
        }
        let store = try StoreOptions.open(a)
        guard let json = try store.siteJSON(id: id) else { throw unknown(id) }
        let sink = try OutputSink(a[output])
        if format == "json" {
            try sink.write { $0.append(contentsOf: json) }
        } else {
            let site: Site
            do { site = try Site(json: json, source: "database site '\(id)'") } catch { throw CommandError.data("\(error)") }
            try sink.write { $0.append(contentsOf: site.geoJSONBytes()) }
        }
        try sink.flush()
    }

    private static func list(_ a: Arguments) throws {
        let store = try StoreOptions.open(a)
        let sites = try store.loadSites()
        guard !sites.isEmpty else { printError("site: no sites stored (see 'sextant site import')"); return }
        let tags = Dictionary(grouping: try store.tags(), by: \.site).mapValues(\.count)
        let rows = [["id", "dims", "anchors", "zones", "tags", "name"]] + sites.map {
            [$0.id, String($0.dimensions), String($0.anchors.count), String($0.zones.count), String(tags[$0.id] ?? 0), $0.name]
        }
        let widths = (0..<6).map { c in rows.map { $0[c].count }.max() ?? 0 }
        for r in rows {
            print(r.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
    }

    private static func show(id: String, _ a: Arguments) throws {
        let store = try StoreOptions.open(a)
        guard let site = try store.loadSites().first(where: { $0.id == id }) else { throw unknown(id) }
        func n(_ v: Double) -> String { String(format: "%g", v) }
        func v(_ p: Vec3) -> String { "(\(n(p.x)), \(n(p.y)), \(n(p.z)))" }
        print("site \(site.id): \(site.name)")
        print("dimensions \(site.dimensions)" + (site.tagHeight.map { ", tag height \(n($0)) m" } ?? "")
              + (site.tagHeightRange.map { ", tags carried at \(n($0.lowerBound))–\(n($0.upperBound)) m" } ?? ""))
        print("bounds \(v(site.bounds.min)) to \(v(site.bounds.max)) m")
        print("anchors (\(site.anchors.count)):")
        for an in site.anchors {
            let tech = an.technologies.map(\.rawValue).joined(separator: ",")
            print("  \(an.id)  \(v(an.position))  \(tech)" + (an.orientation == nil ? "" : "  oriented"))
        }
        print("zones (\(site.zones.count)):")
        for z in site.zones {
            let height = z.minZ != nil || z.maxZ != nil ? "  z \(z.minZ.map(n) ?? "-∞") to \(z.maxZ.map(n) ?? "∞") m" : ""
            print("  \(z.id)  \(z.name)  \(z.polygon.count) vertices\(height)")
        }
        let tags = try store.tags(site: id)
        print("history: \(tags.count) tags")
    }
}
