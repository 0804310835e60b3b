import Foundation
import Positioning

/// Runs `Benchmarks/baseline/numpy_ekf.py` on the same stream and prints the speed ratio.
enum NumpyBaseline {
    static func run(site: Site, input: [UInt8], sextantRate: Double, maxLines: Int) {
        var t = Table("Against a textbook NumPy EKF (6-state CV per tag, str.split parsing; same input, same run)",
                      columns: ["implementation", "ranging lines/s", "ratio", "target", "verdict"])
        t.add(["Sextant (whole path)", Fmt.rate(sextantRate), "1.00×", "", ""])
        defer { t.print() }
        let script = Files.packageRoot.appendingPathComponent("Benchmarks/baseline/numpy_ekf.py")
        guard FileManager.default.fileExists(atPath: script.path) else {
            t.add(["NumPy EKF", "unavailable: \(script.path) not found", "", "≥ 30×", Verdicts.unavailable]); return
        }
        guard shell(["python3", "-c", "import numpy"]).status == 0 else {
            t.add(["NumPy EKF", "unavailable: python3 with numpy not found", "", "≥ 30×", Verdicts.unavailable]); return
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let stream = dir.appendingPathComponent("stream.lp"), siteFile = dir.appendingPathComponent("site.json")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data(input).write(to: stream)
            try Data(site.jsonBytes()).write(to: siteFile)
        } catch {
            t.add(["NumPy EKF", "unavailable: cannot write \(dir.path): \(error)", "", "≥ 30×", Verdicts.unavailable]); return
        }
        let r = shell(["python3", script.path, "--site", siteFile.path, "--input", stream.path, "--max-lines", "\(maxLines)"])
        // "numpy_ekf: N ranging lines in S s: R lines/s (...)"
        guard r.status == 0, let range = r.output.range(of: #"([0-9.]+) lines/s"#, options: .regularExpression),
              let rate = Double(r.output[range].split(separator: " ")[0]) else {
            t.add(["NumPy EKF", "failed: \(r.output.prefix(200))", "", "≥ 30×", Verdicts.unavailable]); return
        }
        let ratio = sextantRate / rate
        t.add(["NumPy EKF (first \(Fmt.count(maxLines)) ranging lines)", Fmt.rate(rate), Fmt.ratio(ratio), "≥ 30×",
               Verdicts.check("vs NumPy EKF", ratio >= numpyTarget)])
    }

    static let numpyTarget = Throughput.numpyTarget

    /// Runs a command found on PATH; returns its exit status and its standard output and error.
    static func shell(_ argv: [String]) -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = argv
        var env = ProcessInfo.processInfo.environment
        for k in ["OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"] { env[k] = "1" }   // one core
        p.environment = env
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        do { try p.run() } catch { return (-1, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
