import Foundation
import Positioning
import Wire
import Numerics

/// `sextant evaluate`: accuracy of position lines against ground truth.
enum EvaluateCommand {
    static let about = """
        USAGE: sextant evaluate --truth FILE --positions FILE [options]

        Compares `position` lines with ground truth (CSV `t_ns,site,tag,x,y,z`, as written by
        `sextant simulate --truth`) and prints, per site: RMSE, median, 95th percentile and maximum error,
        availability (share of truth samples with a position at most --freshness old), and the share of
        errors inside the reported 95 % region. Errors are horizontal on 2-D sites, 3-D on 3-D sites (a site
        is 3-D when its position lines carry `czz`, or when --site says so).
        """

    static let truth = Option.text("truth", "FILE", help: "ground truth CSV ('-' for standard input)")
    static let positions = Option.text("positions", "FILE", help: "line-protocol output of 'sextant replay' ('-' for standard input)")
    static let site = Option.list("site", "FILE", help: "a site file, to take its dimensions from")
    static let warmup = Option.number("warmup", "S", default: 2, in: 0...86_400, help: "seconds skipped at the start of every tag")
    static let freshness = Option.number("freshness", "S", default: 1, in: 0.001...3600,
                                         help: "a position counts as available for this long")
    static let spec = CommandSpec("evaluate", about: about,
                                  options: [truth.spec, positions.spec, site.spec, warmup.spec, freshness.spec])
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let truthPath = try a.required(truth), positionsPath = try a.required(positions)
        guard truthPath != "-" || positionsPath != "-" else {
            throw CommandError.usage("evaluate: --truth and --positions cannot both be standard input")
        }
        var options = Evaluation.Options()
        options.warmup = a[warmup]
        options.freshness = a[freshness]
        var dimensions: [String: Int] = [:]
        for path in a[site] { let s = try loadSite(path); dimensions[s.id] = s.dimensions }

        let samples: [TruthSample]
        do { samples = try TruthCSV.parse(bytes: try readFile(truthPath)) } catch let e as TruthCSVError {
            throw CommandError.data("\(truthPath): \(e)")
        }
        let (estimates, seen3D) = try readPositions(positionsPath)
        for site in seen3D where dimensions[site] == nil { dimensions[site] = 3 }
        guard !estimates.isEmpty else { throw CommandError.data("\(positionsPath): no position lines") }
        let evaluation = Evaluation(truth: samples, estimates: estimates, dimensions: dimensions, options: options)
        print(evaluation.table(), terminator: "")
        print("")
    }

    /// Reads `position` lines from a file; other lines (proximity, removed, comments) are skipped.
    static func readPositions(_ path: String) throws -> ([EstimateSample], Set<String>) {
        let (estimates, threeD, firstError) = parsePositions(try readFile(path))
        if let firstError { printError("evaluate: \(path): skipped a malformed line (\(firstError))") }
        return (estimates, threeD)
    }

    /// Parses `position` lines: the estimates, the sites that are 3-D, and the first malformed line.
    static func parsePositions(_ bytes: [UInt8]) -> ([EstimateSample], Set<String>, String?) {
        var splitter = LineSplitter()
        var out: [EstimateSample] = []
        var threeD: Set<String> = []
        var firstError: String?
        func handle(_ piece: SplitLine) {
            guard case .line(let number, let bytes) = piece else { return }
            do {
                guard let line = try ParsedLine.parse(bytes), line.measurement == "position" else { return }
                guard let site = line.tag("site"), let tag = line.tag("tag"), let t = line.timestamp,
                      let x = line.field("x")?.doubleValue, let y = line.field("y")?.doubleValue,
                      let z = line.field("z")?.doubleValue else {
                    if firstError == nil { firstError = "line \(number): position line without site, tag, x, y, z or timestamp" }
                    return
                }
                let f = { (k: String) in line.field(k)?.doubleValue }
                var cov: PositionCovariance? = nil
                if let xx = f("cxx"), let xy = f("cxy"), let yy = f("cyy") {
                    cov = PositionCovariance(xx: xx, xy: xy, yy: yy, xz: f("cxz") ?? 0, yz: f("cyz") ?? 0, zz: f("czz") ?? 0)
                }
                if f("czz") != nil { threeD.insert(site) }
                out.append(EstimateSample(site: site, tag: tag, time: t, position: Vec3(x, y, z), covariance: cov))
            } catch {
                if firstError == nil { firstError = "line \(number): \(error)" }
            }
        }
        splitter.feed(bytes, handle)
        splitter.finish(handle)
        return (out, threeD, firstError)
    }
}
