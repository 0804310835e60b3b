import Foundation
import Positioning
import Wire

/// Section 1 of `accuracy`: the real LIAS planar UWB runs, Sextant next to the textbook methods.
enum LIASAccuracy {
    /// The dataset README's reference RMSE (m): least squares, EKF, gated EKF, for fast and mid.
    static let reference: [String: (ls: Double, ekf: Double, gated: Double)] = [
        "fast": (0.157, 0.159, 0.267), "mid": (0.160, 0.156, 0.256),
    ]
    static let targetRMSE = 0.08

    /// What later sections (smoothing) reuse.
    struct Result {
        var run: String
        var site: Site
        var truth: [TruthSample]
        var sextant: EngineRun
        var metrics: SiteMetrics?
    }

    static func run(smooth: Bool) -> [Result] {
        print("\n== 1. LIAS planar (real UWB, 8 anchors, 3 tags; horizontal error after each tag's first 2 s) ==")
        guard let folder = Files.liasFolder else {
            print("  skipped: the LIAS dataset was not found (looked for ../shared/datasets/lias-planar next to the "
                  + "package root \(Files.packageRoot.path); set SEXTANT_LIAS to its folder)")
            return []
        }
        let site: Site
        do { site = try Files.site(folder.appendingPathComponent("site.json")) } catch {
            print("  skipped: \(error)"); return []
        }
        var results: [Result] = []
        var sextantTable = Table("Sextant (Pipeline, default EngineConfig, site.json as given)",
                                 columns: ["run", "lines", "RMSE m", "median m", "p95 m", "max m", "cov95",
                                           "target", "RMSE", "cov95 85–99 %"])
        var textbook = Table("Textbook methods on the same input (RMSE m; reference from the dataset README)",
                             columns: ["run", "LS 0.3 s", "ref", "EKF", "ref", "EKF χ²<9", "ref", "gated ranges",
                                       "Sextant", "Sextant / best textbook"])
        for run in ["fast", "mid"] {
            let input: [UInt8], truth: [TruthSample]
            do {
                input = try Files.read(folder.appendingPathComponent("\(run).lp.gz"))
                truth = try TruthCSV.parse(bytes: try Files.read(folder.appendingPathComponent("\(run)-truth.csv.gz")))
            } catch {
                print("  \(run): skipped (\(error))"); continue
            }
            let sextant = EngineRun.replay(site: site, input: input, smooth: smooth && run == "fast")
            let m = sextant.evaluate(truth: truth, site: site)
            let rmse = m?.rmse ?? .nan
            sextantTable.add([run, Fmt.count(sextant.linesRead), Fmt.f(rmse), Fmt.f(m?.median ?? .nan),
                              Fmt.f(m?.p95 ?? .nan), Fmt.f(m?.max ?? .nan), Fmt.pct(m?.coverage95),
                              "≤ \(Fmt.f(targetRMSE, 2))", Verdicts.check("LIAS \(run) RMSE", rmse <= targetRMSE),
                              coverageVerdict("LIAS \(run)", m?.coverage95)])
            results.append(Result(run: run, site: site, truth: truth, sextant: sextant, metrics: m))

            // The textbook methods, on the decoded ranges of the same input.
            var events: [Event] = []
            var reader = IngestReader()
            input.withUnsafeBytes { bytes in
                reader.feed(bytes, timestamps: .requireTimestamp) { if case .success(let e) = $0 { events.append(e) } }
            }
            reader.finish(timestamps: .requireTimestamp) { if case .success(let e) = $0 { events.append(e) } }
            let (samples, tags) = Textbook.ranges(events, site: site)
            let eval = { (e: [EstimateSample]) in
                Evaluation(truth: truth, estimates: e, dimensions: [site.id: 2]).site(site.id)?.rmse ?? .nan
            }
            let ls = eval(Textbook.leastSquares(samples, tags: tags, site: site))
            let ekf = eval(Textbook.ekf(samples, tags: tags, site: site).estimates)
            let gatedRun = Textbook.ekf(samples, tags: tags, site: site, gate: 9)
            let gated = eval(gatedRun.estimates)
            let ref = reference[run]!
            let best = min(ls, ekf, gated)
            textbook.add([run, Fmt.f(ls), Fmt.f(ref.ls), Fmt.f(ekf), Fmt.f(ref.ekf), Fmt.f(gated), Fmt.f(ref.gated),
                          Fmt.pct(Double(gatedRun.gated) / Double(max(1, samples.count))), Fmt.f(rmse),
                          Fmt.f(rmse / best, 2)])
        }
        sextantTable.print()
        textbook.print()
        print("  Textbook settings: LS unweighted Gauss–Newton every 0.1 s; EKF q = 1 m²/s³, σ = 0.10 m, started at the "
              + "first LS fix; none of them removes the ranges' bias.")
        return results
    }
}

/// PASS when the 95 % coverage is within 85–99 %; recorded under `name` for the verdicts and for the
/// coverage summary (section 6).
func coverageVerdict(_ name: String, _ coverage: Double?) -> String {
    guard let c = coverage else { return Verdicts.unavailable }
    let verdict = Verdicts.check("\(name) cov95", (0.85...0.99).contains(c))
    Verdicts.coverage.append((name, c, verdict))
    return verdict
}
