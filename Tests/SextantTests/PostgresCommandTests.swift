import Foundation
import Numerics
import Positioning
import Testing
@testable import Store

/// `sextant site`, `history` and `zones` against PostgreSQL print exactly what they print against
/// SQLite for the same history.
@Suite struct PostgresCommandTests {
    @Test("site, history and zones read PostgreSQL (--database) exactly as they read SQLite (--data-dir)")
    func commandsMatchSQLite() throws {
        guard let server = ProcessInfo.processInfo.environment["SEXTANT_TEST_POSTGRES"], !server.isEmpty else {
            Issue.record("SEXTANT_TEST_POSTGRES is not set: run the tests through scripts/with-services (scripts/test does)")
            return
        }
        let name = "sextant_cli_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try PostgresConnection(url: server).execute("CREATE DATABASE \(name)")
        defer { try? PostgresConnection(url: server).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        let url = String(server[..<server.lastIndex(of: "/")!]) + "/" + name
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-pg-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("data").path, site = dir.appendingPathComponent("site.json").path
        try Site.demoWarehouseJSON.write(toFile: site, atomically: true, encoding: .utf8)
        let sqlite = ["--data-dir", data], postgres = ["--database", url]
        for store in [sqlite, postgres] {
            #expect(try run(["site", "import", site] + store, in: dir).status == 0)
        }
        for store: any HistoryStorage in [try HistoryStore(directory: data), try PostgresHistoryStore(url: url)] {
            let writer = store.makeWriter()
            for step in 0..<300 {
                let tag = "T\(step % 3)"
                var e = PositionEstimate(site: "demo-warehouse", tag: tag, position: Vec3(Double(step) * 0.1, 2.5, 0),
                                         velocity: Vec3(0.1, 0, 0), covXX: 0.01, covXY: 0.001, covYY: 0.02,
                                         anchors: 4, motion: .moving, time: 1_764_000_000_000_000_000 + Int64(step) * 100_000_000)
                if step == 7 { e.position = Vec3(.nan, .nan, .nan) }
                writer.append(e)
            }
            writer.appendZoneEvent(site: "demo-warehouse", tag: "T1", zone: "dock", event: .enter, time: 1_764_000_001_000_000_000)
            writer.appendZoneEvent(site: "demo-warehouse", tag: "T1", zone: "dock", event: .exit, time: 1_764_000_004_500_000_000)
            writer.close()
        }
        let commands: [[String]] = [
            ["site", "list"],
            ["site", "show", "demo-warehouse"],
            ["history", "--site", "demo-warehouse"],
            ["history", "--site", "demo-warehouse", "--tag", "T2", "--format", "lp", "--from", "1764000005000000000"],
            ["history", "--site", "demo-warehouse", "--last", "--format", "geojson"],
            ["zones", "--site", "demo-warehouse"],
            ["zones", "--site", "demo-warehouse", "--events"],
        ]
        for argv in commands {
            let a = try run(argv + sqlite, in: dir), b = try run(argv + postgres, in: dir)
            #expect(a.status == 0 && b.status == 0, "\(argv): \(a.stderr) \(b.stderr)")
            #expect(!a.stdout.isEmpty && a.stdout == b.stdout, "\(argv)")
        }
        // Who was inside x in [5, 10] m, y in [2, 3] m: positions 50…100 (x = 0.1 step), every tag.
        let inside = try run(["history", "--site", "demo-warehouse", "--inside", "POLYGON((5 2, 10 2, 10 3, 5 3, 5 2))"]
                             + postgres, in: dir)
        #expect(inside.status == 0, "\(inside.stderr)")
        #expect(inside.stdout.split(separator: "\n").count == 1 + 51, "header and 51 rows")
        let refused = try run(["history", "--site", "demo-warehouse", "--inside", "POLYGON((0 0, 1 0, 1 1, 0 0))"]
                              + sqlite, in: dir)
        #expect(refused.status == 64 && refused.stderr.contains("needs --database"), "\(refused.stderr)")
    }

    /// Runs the built `sextant` in `dir`; returns its status, standard output and standard error.
    private func run(_ arguments: [String], in dir: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var bin = URL(fileURLWithPath: me).deletingLastPathComponent()
        for _ in 0..<4 where !FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("sextant").path) {
            bin = bin.deletingLastPathComponent()
        }
        let p = Process()
        p.executableURL = bin.appendingPathComponent("sextant")
        p.arguments = arguments
        p.currentDirectoryURL = dir
        let out = dir.appendingPathComponent("stdout-\(UUID().uuidString)")
        try #require(FileManager.default.createFile(atPath: out.path, contents: nil), "cannot create \(out.path)")
        defer { try? FileManager.default.removeItem(at: out) }
        p.standardOutput = try FileHandle(forWritingTo: out)
        let errors = Pipe()
        p.standardError = errors
        try p.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, try String(contentsOf: out, encoding: .utf8), text)
    }
}
