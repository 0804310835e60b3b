import Foundation
import Numerics
import Positioning
import Survey

/// `sextant survey bias`: range bias and noise per anchor from a tag at known positions.
enum SurveyBiasCommand {
    static let about = """
        USAGE: sextant survey bias --site FILE --input FILE (--truth FILE | --at X,Y,Z) [--out FILE]

        Estimates each anchor's range bias (measured − true distance: a Huber mean, little moved by NLOS
        bursts) and noise (standard deviation within 3 robust σ), per technology, from ranges to tags at
        known positions: a ground-truth track (--truth, CSV t_ns,site,tag,x,y,z) or one point where
        every tag stood (--at). Prints the figures; with --out, writes the site file with `rangeBias`
        and `rangeStd` set from the anchor's default technology.
        """

    static let site = SurveyIO.site
    static let input = Option.text("input", "FILE", help: "ingest lines (ranging to the tags)")
    static let truth = Option.text("truth", "FILE", help: "ground truth CSV")
    static let at = Option.text("at", "X,Y,Z", help: "the tags' fixed position, site frame, metres")
    static let minCount = Option.integer("min-count", "N", default: 10, in: 1...Int.max,
                                         help: "fewest ranges for an anchor's figures to be written")
    static let out = Option.text("out", "FILE", help: "write the site file with the estimated rangeBias and rangeStd")
    static let spec = CommandSpec("survey bias", about: about,
                                  options: [site.spec, input.spec, truth.spec, at.spec, minCount.spec, out.spec])
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let sitePath = try a.required(site), inputPath = try a.required(input)
        let minCount = a[Self.minCount]
        let truthSource: TruthSource
        switch (a[truth], a[at]) {
        case (let path?, nil): truthSource = .track(try SurveyIO.readTruth(path))
        case (nil, let at?):
            let parts = at.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3, parts.allSatisfy(\.isFinite) else {
                throw CommandError.usage("survey bias: --at must be X,Y,Z in metres, got '\(at)'")
            }
            truthSource = .fixed(Vec3(parts[0], parts[1], parts[2]))
        default: throw CommandError.usage("survey bias: give exactly one of --truth FILE and --at X,Y,Z")
        }
        let site = try loadSite(sitePath)
        let input = try SurveyIO.readInput(inputPath, command: "survey bias")
        let residuals = BiasEstimation.residuals(site: site, rangings: input.rangings(site: site.id), truth: truthSource)
        guard !residuals.isEmpty else {
            throw CommandError.data("survey bias: no ranges of site '\(site.id)' with a known true position in \(inputPath)")
        }
        let biases = BiasEstimation.estimate(site: site, residuals: residuals)
        print("range bias and noise of \(site.id) from \(residuals.count) ranges (measured − true distance)")
        print("anchor   tech      n   bias (m)   mean (m)  median (m)   std (m)  robust std (m)")
        for b in biases {
            var line = TextFormat.pad(b.anchor, 9) + TextFormat.pad(b.technology.rawValue, 5)
            line += TextFormat.pad(String(b.count), 6, right: true)
            for v in [b.bias, b.mean, b.median, b.std, b.robustStd] { line += TextFormat.pad(TextFormat.fixed(v, 3), 11, right: true) }
            print(line)
        }
        let applied = BiasEstimation.apply(biases, to: site, minCount: minCount)
        let skipped = site.anchors.map(\.id).filter { !applied.updated.contains($0) }
        if !skipped.isEmpty { print("fewer than \(minCount) ranges, left unchanged: " + skipped.joined(separator: ", ")) }
        if let out = a[out] {
            try SurveyIO.write(applied.site.jsonBytes(), to: out)
            print("site file with rangeBias and rangeStd written to \(out)")
        } else {
            print("(use --out FILE to write them into a site file)")
        }
    }
}
