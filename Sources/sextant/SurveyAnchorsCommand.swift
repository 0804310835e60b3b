import Foundation
import Numerics
import Positioning
import Survey

/// `sextant survey anchors`: each anchor's mapped position checked against its ranges, without truth.
enum SurveyAnchorsCommand {
    static let about = """
        USAGE: sextant survey anchors --site FILE --input FILE [--3d] [--tolerance M] [--out FILE]

        Checks where each anchor is against the map, from a recording of tags moving about the site
        (no ground truth, no anchor-to-anchor ranging): for each anchor, the engine places the tags
        without that anchor's lines, each of its ranges is paired with the tag's position at that
        moment, and the pairs are solved for the anchor's position (robust least squares, the tag
        position's uncertainty added to each range's σ). Prints each anchor's estimated position, its
        shift from the map with 1-σ, and MOVED where the shift is beyond 3 σ and beyond --tolerance.
        By default x and y are solved and the mounting heights kept; --3d solves z too (3-D sites,
        with tags at varied heights). Exits with 1 when an anchor is MOVED.
        """

    static let site = SurveyIO.site
    static let input = Option.text("input", "FILE", help: "ingest lines: a recording of tags moving about the site")
    static let solveHeight = Option.flag("3d", help: "solve the anchors' heights too")
    static let tolerance = Option.number("tolerance", "M", default: 0.2, in: 0...100, help: "smallest shift reported as MOVED, metres")
    static let out = Option.text("out", "FILE", help: "write the site file with the MOVED anchors at their estimated positions")
    static let spec = CommandSpec("survey anchors", about: about,
                                  options: [site.spec, input.spec, solveHeight.spec, tolerance.spec, out.spec])
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let sitePath = try a.required(site), inputPath = try a.required(input)
        let tolerance = a[Self.tolerance]
        let site = try loadSite(sitePath)
        let input = try SurveyIO.readInput(inputPath, command: "survey anchors")
        guard input.events.contains(where: { $0.site == site.id }) else {
            throw CommandError.data("survey anchors: no line of site '\(site.id)' in \(inputPath)")
        }
        let progress = ProgressLine("survey anchors")
        let results = AnchorPositionCheck.run(site: site, events: input.events, solveHeight: a[solveHeight]) { done, all in
            progress.update(Double(done) / Double(all))
        }
        progress.finish()
        print("anchor positions of \(site.id) from its ranges to the tags (each anchor solved without its own lines)")
        print("anchor     pairs   mapped x, y, z (m)          estimated x, y, z (m)       shift (m)  σ (m)")
        var moved = site
        var movedIDs: [String] = []
        for (i, r) in results.enumerated() {
            var line = TextFormat.pad(r.anchor, 9) + TextFormat.pad(String(r.pairs), 7, right: true) + "   "
            line += TextFormat.pad(xyz(r.mapped), 28)
            if let e = r.estimated, let shift = r.shift, let sigma = r.sigma {
                line += TextFormat.pad(xyz(e), 28) + TextFormat.pad(TextFormat.fixed(shift, 3), 9, right: true)
                line += TextFormat.pad(TextFormat.fixed(sigma, 3), 7, right: true)
                if r.isMisplaced(tolerance: tolerance) {
                    line += "  MOVED"
                    moved.anchors[i].position = e
                    movedIDs.append(r.anchor)
                }
            } else {
                line += "no estimate: \(r.failure ?? "no pairs")"
            }
            print(line)
        }
        print(movedIDs.isEmpty
              ? "no anchor is more than \(TextFormat.fixed(tolerance, 2)) m and 3 σ from its mapped position"
              : "MOVED (beyond \(TextFormat.fixed(tolerance, 2)) m and 3 σ): " + movedIDs.joined(separator: ", "))
        if let out = a[out] {
            try SurveyIO.write(moved.jsonBytes(), to: out)
            print("site file with the MOVED anchors at their estimated positions written to \(out)")
        }
        if !movedIDs.isEmpty {
            throw CommandError(message: "survey anchors: \(movedIDs.count) anchor(s) MOVED", code: .failure)
        }
    }

    static func xyz(_ p: Vec3) -> String {
        [p.x, p.y, p.z].map { TextFormat.fixed($0, 3) }.joined(separator: ", ")
    }
}
