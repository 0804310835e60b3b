import BuildInfo
import Foundation
import Server
import Testing
import Wire

/// The built `sextant` executable, run as an operator runs it.
@Suite struct BuiltBinaryTests {
    @Test("--version prints the build's version and exits 0")
    func version() throws {
        let run = try SextantProcess(["--version"])
        let out = try run.readStandardOutputToEnd()
        #expect(run.wait() == 0)
        #expect(out == "sextant \(BuildInfo.version)\n")
        #expect(!BuildInfo.version.isEmpty)
    }

    /// Without OPENBLAS_NUM_THREADS in its environment, the service keeps its own process (no
    /// re-execution through /proc/self/exe, which would rename it `exe`), logs its version first and
    /// reports it in `#stats`.
    @Test("serve is named sextant, logs its version first and reports it in #stats")
    func serveNameAndVersion() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-binary-\(getpid())")
        try? FileManager.default.removeItem(at: data)
        defer { try? FileManager.default.removeItem(at: data) }
        let run = try SextantProcess(["serve", "--data-dir", data.path, "--ingest-port", "0", "--feed-port", "0",
                                      "--site", SextantProcess.packageRoot.appendingPathComponent("Sites/demo-warehouse.json").path],
                                     removing: "OPENBLAS_NUM_THREADS")
        defer { run.terminate() }
        let first = try #require(try run.nextErrorLine())
        #expect(first.contains("msg=\"sextant starting\" version=\(BuildInfo.version) "), "\(first)")
        var listening = ""
        while let line = try run.nextErrorLine() {
            if line.contains("msg=\"listening\"") { listening = line; break }
        }
        let feedPort = try #require(listening.split(separator: " ").first { $0.hasPrefix("feed_port=") }
            .flatMap { UInt16($0.dropFirst("feed_port=".count)) }, "no feed port in '\(listening)'")

        let comm = try String(contentsOfFile: "/proc/\(run.pid)/comm", encoding: .utf8)
        #expect(comm == "sextant\n")
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(run.pid)/environ"))
        #expect(!String(decoding: environ, as: UTF8.self).contains("OPENBLAS_NUM_THREADS="),
                "the service set the variable and re-executed itself")

        let text = try StatsClient.request(host: "127.0.0.1", port: feedPort)
        #expect(text.contains("\n# version=\(BuildInfo.version)\n"))
        let lp = try StatsClient.request(host: "127.0.0.1", port: feedPort, lineProtocol: true)
        let line = try #require(try ParsedLine.parse(lp.trimmingCharacters(in: .newlines)))
        #expect(line.tag("version") == BuildInfo.version)
    }

    @Test("#stats carries the version as a comment line and as a line-protocol tag, escaped")
    func statsVersion() throws {
        var s = ServiceStats()
        #expect(s.version == BuildInfo.version)
        s.version = "1.2.3 rc,1=x"
        #expect(s.commentLines.hasSuffix("# uptime_seconds=0\n# version=1.2.3 rc,1=x\n# end\n"))
        let line = try #require(try ParsedLine.parse(s.lineProtocol(time: 1).trimmingCharacters(in: .newlines)))
        #expect(line.measurement == "sextant_stats")
        #expect(line.tag("version") == "1.2.3 rc,1=x")
        #expect(line.field("lines_in") == .integer(0))
    }
}
