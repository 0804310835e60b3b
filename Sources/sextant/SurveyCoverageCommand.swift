import Foundation
import Positioning
import Survey

/// `sextant survey coverage`: the expected accuracy map of a site.
enum SurveyCoverageCommand {
    static let about = """
        USAGE: sextant survey coverage --site FILE --out FILE.png|FILE.svg|FILE.pdf [--resolution M] [--height H]

        Maps the expected 1-σ horizontal accuracy over the site's bounds: in every cell, the Cramér–Rao
        bound of one round of measurements from the anchors in range (UWB 30 m, Channel Sounding 20 m),
        with their noise (rangeStd or the technology default) and, for oriented UWB anchors that see the
        cell, their azimuth and elevation. The map shows the anchors (on 3-D sites with their heights),
        their direction cones and the zones, with a colour bar and a legend. A summary goes to standard
        output: the share of the area under 0.1 m, 0.3 m and 1 m, and the cells with fewer anchors than
        a fix needs.
        """

    static let site = SurveyIO.site
    static let out = Option.text("out", "FILE", help: "the figure: .png, .svg or .pdf")
    static let resolution = Option.number("resolution", "M", default: 0.5, in: 0.01...100, help: "cell size in metres")
    static let height = Option.number("height", "H", in: -1000...1000, help: "tag height in metres",
                                      defaultText: "the site's tagHeight, else 1.2 m above the floor, moved into the site's tagHeightRange")
    static let spec = CommandSpec("survey coverage", about: about, options: [site.spec, out.spec, resolution.spec, height.spec])
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let sitePath = try a.required(site), out = try a.required(Self.out)
        _ = try SurveyIO.imageFormat(out, command: "survey coverage")
        let resolution = a[Self.resolution]
        let height = a[Self.height]
        let site = try loadSite(sitePath)
        let cells = (site.bounds.max.x - site.bounds.min.x) * (site.bounds.max.y - site.bounds.min.y) / (resolution * resolution)
        guard cells <= 4_000_000 else {
            throw CommandError.usage("survey coverage: --resolution \(resolution) gives \(String(format: "%.0f", cells)) cells; use a coarser one")
        }
        let progress = ProgressLine("coverage:")
        let map = CoverageMap(site: site, resolution: resolution, height: height, progress: progress.update)
        progress.finish()
        try SurveyIO.writeMap(map, to: out, command: "survey coverage")
        print("coverage of \(site.id) at z = \(map.height) m, \(map.columns) × \(map.rows) cells of \(resolution) m")
        print(map.summary.text)
        print("map written to \(out)")
    }
}
