import Foundation
import Testing
import Positioning
import Server
@testable import sextant

/// The `sextant` executable built beside this test bundle.
func sextantPath() throws -> String {
    let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    var dir = URL(fileURLWithPath: me).deletingLastPathComponent()
    // The bundle may be `…/debug/SextantPackageTests.xctest` (a file) or a directory inside it.
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("sextant").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    throw CommandError(message: "no sextant executable near \(me); build it with 'swift build --build-tests'", code: .noInput)
}

/// Runs `sextant` with standard output to `stdout` (a path); returns the exit status and standard error.
func run(_ arguments: [String], stdout: String = "/dev/null") throws -> (status: Int32, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: try sextantPath())
    p.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["OPENBLAS_NUM_THREADS"] = "1"
    p.environment = environment
    p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdout))
    let errors = Pipe()
    p.standardError = errors
    try p.run()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return (p.terminationStatus, text)
}

/// A scratch directory with the demo site imported, a short simulated run, its positions and truth.
final class Scratch {
    let dir: URL
    var site: String { dir.appendingPathComponent("site.json").path }
    var data: String { dir.appendingPathComponent("data").path }
    var truth: String { dir.appendingPathComponent("truth.csv").path }
    var stream: String { dir.appendingPathComponent("stream.lp").path }
    var positions: String { dir.appendingPathComponent("positions.lp").path }

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Site.demoWarehouseJSON.write(toFile: site, atomically: true, encoding: .utf8)
        try SiteCommand.run(["import", site, "--data-dir", data])
        try SimulateCommand.run(["--site", site, "--tags", "2", "--duration", "5", "--truth", truth, "--output", stream])
        try ReplayCommand.run(["--site", site, "--input", stream, "--output", positions])
    }

    deinit { try? FileManager.default.removeItem(at: dir) }
}

@Suite(.serialized) struct CommandOutputTests {
    /// Output to a full standard output was lost with exit 0.
    @Test("every command printing to a full standard output exits 74 with a message")
    func fullStandardOutput() throws {
        let s = try Scratch()
        let commands: [[String]] = [
            ["site", "list", "--data-dir", s.data],
            ["site", "show", "demo-warehouse", "--data-dir", s.data],
            ["zones", "--site", "demo-warehouse", "--events", "--data-dir", s.data],
            ["evaluate", "--truth", s.truth, "--positions", s.positions],
            ["survey", "coverage", "--site", s.site, "--out", s.dir.appendingPathComponent("c.svg").path, "--resolution", "2"],
            ["replay", "--site", s.site, "--input", s.stream],
            ["history", "--site", "demo-warehouse", "--data-dir", s.data, "--format", "csv"],
            ["--help"],
        ]
        for argv in commands {
            let ok = try run(argv)
            if argv != ["--help"] { #expect(ok.status == 0, "\(argv): \(ok.stderr)") }
            let full = try run(argv, stdout: "/dev/full")
            #expect(full.status != 0, "\(argv)")
            #expect(full.stderr.contains("No space left on device") || full.stderr.contains("a write failed"),
                    "\(argv): \(full.stderr)")
        }
        let full = try run(["site", "list", "--data-dir", s.data], stdout: "/dev/full")
        #expect(full.status == 74)
        #expect(full.stderr.hasPrefix("sextant site: cannot write standard output: No space left on device"), "\(full.stderr)")
    }

    /// `history` and `zones` for an unknown site exited 0 where `site show` exits 66.
    @Test("history and zones for an unknown site exit 66 like site show")
    func unknownSite() throws {
        let s = try Scratch()
        for argv in [["history", "--site", "nowhere", "--data-dir", s.data],
                     ["zones", "--site", "nowhere", "--data-dir", s.data],
                     ["site", "show", "nowhere", "--data-dir", s.data]] {
            let r = try run(argv)
            #expect(r.status == 66, "\(argv): \(r.stderr)")
            #expect(r.stderr.contains("no site 'nowhere' in the database"), "\(r.stderr)")
        }
        #expect(try run(["history", "--site", "demo-warehouse", "--data-dir", s.data]).status == 0)
    }

    /// `serve --config /dev/zero` ended with an allocation failure (exit 134).
    @Test("serve --config of /dev/zero is refused with a message")
    func configOfDevZero() throws {
        do {
            _ = try ServeCommand.makeConfig(ServeCommand.arguments(["--config", "/dev/zero"]))
            Issue.record("accepted")
        } catch let e as CommandError {
            #expect(e.code == .dataError)
            #expect(e.message == "serve: /dev/zero: is larger than 1048576 bytes; not a configuration file", "\(e.message)")
        } catch {
            Issue.record("\(error)")
        }
        #expect(throws: CommandError.self) { try ServeCommand.makeConfig(ServeCommand.arguments(["--precision", "min"])) }
        #expect(try ServeCommand.makeConfig(ServeCommand.arguments(["--precision", "ms"])).timestampPrecision == .ms)
        #expect(try ServeCommand.makeConfig(ServeCommand.arguments(["--bind", "::1"])).bindAddress == "::1")
    }

    @Test("replay --precision ms gives the output of the nanosecond stream")
    func replayPrecision() throws {
        let s = try Scratch()
        let lines = try String(contentsOfFile: s.stream, encoding: .utf8).split(separator: "\n")
        // The simulator's times are whole microseconds or not; keep the lines exact in ms by rounding.
        var ns = "", ms = ""
        for line in lines {
            guard let space = line.lastIndex(of: " "), let t = Int64(line[line.index(after: space)...]) else { continue }
            let millis = t / 1_000_000
            ns += line[..<space] + " \(millis * 1_000_000)\n"
            ms += line[..<space] + " \(millis)\n"
        }
        let nsIn = s.dir.appendingPathComponent("ns.lp").path, msIn = s.dir.appendingPathComponent("ms.lp").path
        try ns.write(toFile: nsIn, atomically: true, encoding: .utf8)
        try ms.write(toFile: msIn, atomically: true, encoding: .utf8)
        let nsOut = s.dir.appendingPathComponent("ns.out").path, msOut = s.dir.appendingPathComponent("ms.out").path
        try ReplayCommand.run(["--site", s.site, "--input", nsIn, "--output", nsOut])
        try ReplayCommand.run(["--site", s.site, "--input", msIn, "--output", msOut, "--precision", "ms"])
        let a = try Data(contentsOf: URL(fileURLWithPath: nsOut)), b = try Data(contentsOf: URL(fileURLWithPath: msOut))
        #expect(!a.isEmpty)
        #expect(a == b)
        #expect(throws: CommandError.self) { try ReplayCommand.run(["--site", s.site, "--input", msIn, "--precision", "h"]) }
    }

    /// A site with bounds up to 1e308 was imported and then crashed `survey coverage` (SIGILL).
    @Test("site import refuses absurd bounds; survey coverage of a site at the limits is refused, not a crash")
    func absurdSites() throws {
        let s = try Scratch()
        let huge = Site.demoWarehouseJSON.replacingOccurrences(of: "\"bounds\"", with: "\"bounds\": {\"min\": [0, 0, 0], \"max\": [1e308, 1e308, 5]}, \"old\"")
        let hugePath = s.dir.appendingPathComponent("huge.json").path
        try huge.write(toFile: hugePath, atomically: true, encoding: .utf8)
        let imported = try run(["site", "import", hugePath, "--data-dir", s.data])
        #expect(imported.status == 65, "\(imported.stderr)")
        #expect(imported.stderr.contains("field 'bounds.max[0]' is 1e+308, must be within ±1000000 metres"), "\(imported.stderr)")
        let wide = Site.demoWarehouseJSON.replacingOccurrences(of: "\"bounds\"", with: "\"bounds\": {\"min\": [-1e6, -1e6, 0], \"max\": [1e6, 1e6, 5]}, \"old\"")
        let widePath = s.dir.appendingPathComponent("wide.json").path
        try wide.write(toFile: widePath, atomically: true, encoding: .utf8)
        let coverage = try run(["survey", "coverage", "--site", widePath, "--out", s.dir.appendingPathComponent("w.svg").path])
        #expect(coverage.status == 64, "\(coverage.stderr)")
        #expect(coverage.stderr.contains("cells; use a coarser one"), "\(coverage.stderr)")
    }
}
