import Foundation
import Positioning
import Survey

/// `sextant survey calibrate`: anchor self-positioning from anchor-to-anchor ranges.
enum SurveyCalibrateCommand {
    static let about = """
        USAGE: sextant survey calibrate --site FILE --ranges FILE [--fixed A1,A2,A3] [--3d] [--out FILE]

        Finds where the anchors really are from anchor-to-anchor ranges: `ranging` lines whose tag is
        another anchor's id (each anchor's rangeBias is removed). At least three reference anchors
        (--fixed, default the site's first three) keep their positions from the site file and define the
        frame. The ranges of each pair are averaged; classical multidimensional scaling (missing pairs
        filled by shortest paths) gives a starting layout, aligned to the reference anchors, and
        Levenberg–Marquardt least squares refines every free coordinate. Prints each anchor's position
        and 1-σ uncertainty, and writes the updated site file with --out.

        By default x and y are solved and each anchor's height is kept from the site file (mounting
        heights are easy to measure, and ranges between anchors at similar heights hardly observe z);
        --3d solves z as well.
        """

    static let site = Option.text("site", "FILE", help: "the site map (JSON): reference positions, anchor ids, heights")
    static let ranges = Option.text("ranges", "FILE", help: "ingest lines with anchor-to-anchor ranges")
    static let fixed = Option.text("fixed", "IDS", help: "comma-separated reference anchor ids (at least 3)",
                                   defaultText: "the site's first three")
    static let solveHeight = Option.flag("3d", help: "solve heights too")
    static let out = Option.text("out", "FILE", help: "write the site file with the calibrated positions")
    static let spec = CommandSpec("survey calibrate", about: about,
                                  options: [site.spec, ranges.spec, fixed.spec, solveHeight.spec, out.spec])
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let sitePath = try a.required(site), rangesPath = try a.required(ranges)
        var options = CalibrationOptions(dimensions: a[solveHeight] ? 3 : 2)
        if let fixed = a[fixed] {
            options.fixed = fixed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let site = try loadSite(sitePath)
        let ranges = try SurveyIO.readInput(rangesPath, command: "survey calibrate").anchorRanges(site: site)
        let result: CalibrationResult
        do { result = try Calibration.solve(site: site, ranges: ranges, options: options) } catch {
            throw CommandError.data("survey calibrate: \(error)")
        }
        print("calibrated \(result.anchors.count) anchors of \(site.id) from \(result.ranges) ranges over \(result.pairs) pairs "
              + "(\(result.iterations) iterations, normalised RMS residual \(TextFormat.fixed(result.normalizedRMS, 2)))")
        print("anchor   ref  peers       x (m)     y (m)     z (m)    σx (m)   σy (m)   σz (m)   moved (m)")
        for c in result.anchors {
            var line = TextFormat.pad(c.id, 9) + (c.fixed ? "yes " : "    ") + TextFormat.pad(String(c.peers), 6, right: true)
            for v in [c.position.x, c.position.y, c.position.z] { line += TextFormat.pad(TextFormat.fixed(v, 3), 10, right: true) }
            for (k, v) in [c.std.x, c.std.y, c.std.z].enumerated() {
                line += TextFormat.pad(c.fixed || (k == 2 && options.dimensions == 2) ? "-" : TextFormat.fixed(v, 3), 9, right: true)
            }
            line += TextFormat.pad(TextFormat.fixed(c.moved, 3), 12, right: true)
            print(line)
        }
        if !result.uncalibrated.isEmpty {
            print("not calibrated (no ranges), left as in the site file: " + result.uncalibrated.joined(separator: ", "))
        }
        if let out = a[out] {
            try SurveyIO.write(result.site.jsonBytes(), to: out)
            print("site file written to \(out)")
        } else {
            print("(use --out FILE to write the calibrated site file)")
        }
    }
}
