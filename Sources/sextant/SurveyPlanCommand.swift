import Foundation
import Positioning
import Survey

/// `sextant survey plan`: where to add anchors.
enum SurveyPlanCommand {
    static let about = """
        USAGE: sextant survey plan --site FILE (--anchors N | --target M [--anchors MAX]) [--out FILE.png] [options]

        Suggests where to add UWB anchors, one at a time (greedy): N of them, or with --target as many
        as it takes (at most --anchors, default \(mostAnchors)) until the 95th percentile of the expected σ is at
        most M metres; it says whether the target was reached, and exits with 1 when it was not. Each anchor goes to the candidate place
        (along the walls every 2 m, and on a 5 m interior grid for columns, at the existing anchors'
        median mounting height) that most improves the worst coverage: the 95th percentile of the
        expected σ, with places without a fix counted as 10 m. Prints each suggestion with the coverage
        summary before and after; with --out, writes the maps before and after (FILE-before.png and
        FILE-after.png, or .svg or .pdf), with the suggested anchors highlighted.
        """

    /// The most anchors `--target` adds when `--anchors` does not say.
    static let mostAnchors = 20
    static let site = SurveyIO.site
    static let anchors = Option.integer("anchors", "N", in: 1...mostAnchors,
                                        help: "anchors to add; with --target, the most to add", defaultText: "\(mostAnchors) with --target")
    static let target = Option.number("target", "M", in: 0.001...100,
                                      help: "stop when the 95th percentile of σ is at most M metres")
    static let out = Option.text("out", "FILE", help: "base name of the before/after maps: .png, .svg or .pdf")
    static let resolution = Option.number("resolution", "M", default: 1, in: 0.1...100,
                                          help: "cell size in metres of the maps the candidates are judged on")
    static let height = Option.number("height", "H", in: -1000...1000, help: "mounting height in metres",
                                      defaultText: "the existing anchors' median")
    static let siteOut = Option.text("site-out", "FILE", help: "write the site file with the suggested anchors added")
    static let spec = CommandSpec("survey plan", about: about, options: [
        site.spec, anchors.spec, target.spec, out.spec, resolution.spec, height.spec, siteOut.spec,
    ])
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let sitePath = try a.required(site)
        let target = a[Self.target]
        guard a[anchors] != nil || target != nil else {
            throw CommandError.usage("survey plan: give --anchors N, or --target M (metres)")
        }
        var options = PlanOptions(anchors: a[anchors] ?? mostAnchors)
        options.target = target
        options.resolution = a[resolution]
        if let h = a[height] { options.height = h }
        var outs: (String, String)? = nil
        if let out = a[out] {
            let ext = try SurveyIO.imageFormat(out, command: "survey plan").rawValue
            let base = String(out.dropLast(ext.count + 1))
            outs = (base + "-before." + ext, base + "-after." + ext)
        }
        let site = try loadSite(sitePath)
        let progress = ProgressLine("plan:")
        let (planned, steps, worst) = Planner.plan(site, options: options, progress: progress.update)
        progress.finish()
        let initial = CoverageMap(site: site, resolution: options.resolution).summary
        if steps.isEmpty && (target.map { worst > $0 } ?? true) {
            throw CommandError.data("survey plan: no candidate places in the site's bounds")
        }
        print("before:\n" + indent(initial.text))
        for s in steps {
            let p = s.anchor.position
            print("add \(s.anchor.id) (UWB, \(s.kind)) at x \(TextFormat.fixed(p.x, 1)), y \(TextFormat.fixed(p.y, 1)), "
                  + "z \(TextFormat.fixed(p.z, 1)) m: p95 σ \(TextFormat.fixed(s.before.p95, 3)) → \(TextFormat.fixed(s.after.p95, 3)) m, "
                  + "no-fix cells \(s.before.unfixable) → \(s.after.unfixable)")
        }
        if let last = steps.last { print("after:\n" + indent(last.after.text)) }
        if let target {
            let figure = "95th percentile of σ (no-fix cells as 10 m) \(TextFormat.fixed(worst, 3)) m"
            if worst > target {
                print("target \(TextFormat.fixed(target, 3)) m NOT reached after \(steps.count) anchor(s): \(figure)")
            } else if steps.isEmpty {
                print("target \(TextFormat.fixed(target, 3)) m already met, no anchor needed: \(figure)")
            } else {
                print("target \(TextFormat.fixed(target, 3)) m reached after \(steps.count) anchor(s): \(figure)")
            }
        }
        if let (beforePath, afterPath) = outs {
            let added = Set(steps.map(\.anchor.id))
            try SurveyIO.writeMap(CoverageMap(site: site, resolution: min(options.resolution, 0.5)), to: beforePath,
                                  command: "survey plan", title: "\(site.name): coverage before")
            try SurveyIO.writeMap(CoverageMap(site: planned, resolution: min(options.resolution, 0.5)), to: afterPath,
                                  command: "survey plan", title: "\(site.name): coverage with \(steps.count) suggested anchor(s)",
                                  highlight: added)
            print("maps written to \(beforePath) and \(afterPath)")
        }
        if let siteOut = a[siteOut] {
            try SurveyIO.write(planned.jsonBytes(), to: siteOut)
            print("site file with the suggested anchors written to \(siteOut)")
        }
        if let target, worst > target {
            throw CommandError(message: "survey plan: target \(TextFormat.fixed(target, 3)) m not reached", code: .failure)
        }
    }

    static func indent(_ s: String) -> String { s.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") }
}
