import Foundation
import Testing
import Positioning
import SextantTestSupport
@testable import Store
@testable import Server

/// The live service writing its history to a PostgreSQL that restarts or fills up, for real: the
/// second cluster of scripts/services.d/postgres.sh, which no other test uses (the suite is serialised
/// so that its two tests do not disturb each other).
@Suite(.serialized) struct PostgresDisruptionTests {
    /// The disruptable cluster and how to drive it, from scripts/with-services.
    struct Cluster {
        let server: String, data: String, pgCtl: String, runAs: String

        init() throws {
            let env = ProcessInfo.processInfo.environment
            guard let server = env["SEXTANT_TEST_POSTGRES_DISRUPT"], let data = env["SEXTANT_TEST_POSTGRES_DISRUPT_DATA"],
                  let pgCtl = env["SEXTANT_TEST_POSTGRES_CTL"], !server.isEmpty else {
                throw TestFailure("SEXTANT_TEST_POSTGRES_DISRUPT is not set: run the tests through scripts/with-services "
                                  + "(scripts/test does), which starts a PostgreSQL that this suite may restart")
            }
            self.server = server; self.data = data; self.pgCtl = pgCtl
            runAs = env["SEXTANT_TEST_POSTGRES_RUN_AS"] ?? ""
        }

        /// A new database on the cluster; its URL.
        func createDatabase() throws -> (name: String, url: String) {
            let name = "sextant_disrupt_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try PostgresConnection(url: server).execute("CREATE DATABASE \(name)")
            return (name, String(server[..<server.lastIndex(of: "/")!]) + "/" + name)
        }

        func drop(_ name: String) {
            try? PostgresConnection(url: server).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }

        /// `pg_ctl restart -m fast`: every session is ended, the server stops and starts again; returns
        /// once it accepts connections.
        func restart() throws {
            var argv = [pgCtl, "-D", data, "-l", (data as NSString).deletingLastPathComponent + "/server.log",
                        "-m", "fast", "-w", "-t", "60", "-s", "restart"]
            if !runAs.isEmpty {
                let runuser = FileManager.default.fileExists(atPath: "/usr/sbin/runuser") ? "/usr/sbin/runuser" : "/sbin/runuser"
                argv = [runuser, "-u", runAs, "--"] + argv
            }
            let status = try Self.run(argv)
            guard status == 0 else { throw TestFailure("\(argv.joined(separator: " ")) exited with \(status)") }
        }

        /// Runs `argv` and waits for it (posix_spawn and waitpid: Foundation's `Process` can miss the
        /// exit of a child whose own children live on, as the restarted server does).
        static func run(_ argv: [String]) throws -> Int32 {
            var pid: pid_t = 0
            var cArgs = argv.map { strdup($0) } + [nil]
            defer { for a in cArgs { free(a) } }
            let rc = posix_spawn(&pid, argv[0], nil, nil, &cArgs, environ)
            guard rc == 0 else { throw TestFailure("cannot run \(argv[0]): \(String(cString: strerror(rc)))") }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            return (status >> 8) & 0xFF
        }
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    /// A restart of PostgreSQL while gateways send: the writer's connection dies, the batch fails and
    /// is kept, the failure is logged and counted, positioning goes on, and once the server is back
    /// every accepted position is written (none lost, none dropped).
    @Test func restartDuringIngestLosesNothing() throws {
        let cluster = try Cluster()
        let (name, url) = try cluster.createDatabase()
        defer { cluster.drop(name) }
        let t = try TestService { $0.database = url }
        defer { t.stop(removeData: true) }
        let first = demoLines(tags: 3, seconds: 3, prefix: "A")
        let second = demoLines(tags: 3, seconds: 3, prefix: "B")
        let g = try t.gateway()
        try g.writeAll(first)
        let before = t.waitFor { $0.linesIn >= lineCount(first) && $0.historyRowsWritten == $0.positionsOut }
        #expect(before.positionsOut > 0 && before.historyRowsWritten == before.positionsOut, "\(before)")

        // The second part goes in while the server restarts.
        let sent = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for chunk in stride(from: 0, to: second.count, by: 4096) {
                try? g.writeAll(Array(second[chunk..<min(second.count, chunk + 4096)]))
            }
            sent.signal()
        }
        try cluster.restart()
        sent.wait()
        let total = lineCount(first) + lineCount(second)
        let all = t.waitFor(timeout: 30) { $0.linesIn >= total && $0.historyPending == 0 && $0.historyRowsWritten == $0.positionsOut }
        #expect(all.linesIn == total && all.rejectedTotal == 0, "positioning went on: \(all)")
        #expect(all.positionsOut > before.positionsOut)
        #expect(all.historyRowsWritten == all.positionsOut && all.historyDropped == 0, "\(all)")
        #expect(all.historyFailures >= 1, "the failed attempt is counted: \(all)")
        #expect(!t.log.waitFor("msg=\"history write failed", timeout: 10).isEmpty, "a log line names the failure")
        let store = try PostgresHistoryStore(url: url)
        #expect(try store.positionCount(site: nil, tag: nil, from: nil, to: nil) == all.positionsOut)
    }

    /// PostgreSQL runs out of disk (the positions table on a tablespace on a small tmpfs, filled up):
    /// the writes fail with 53100, are logged and counted, the rows stay pending, positioning goes on;
    /// once space is freed the writer writes them all.
    @Test func fullDiskKeepsRowsUntilSpaceReturns() throws {
        let cluster = try Cluster()
        let env = ProcessInfo.processInfo.environment
        guard let small = env["SEXTANT_TEST_POSTGRES_SMALL_DIR"] else {
            throw TestFailure("no small filesystem for the full-disk test: "
                              + (env["SEXTANT_TEST_POSTGRES_SMALL_ERROR"] ?? "run the tests through scripts/with-services"))
        }
        let (name, url) = try cluster.createDatabase()
        let admin = try PostgresConnection(url: cluster.server)
        let space = "small_" + name.suffix(12)
        try admin.execute("CREATE TABLESPACE \(space) LOCATION '\(small)'")
        defer {
            cluster.drop(name)
            try? admin.execute("DROP TABLESPACE IF EXISTS \(space)")
        }
        _ = try PostgresHistoryStore(url: url)   // migrated (and PostGIS's column added) before the move
        let db = try PostgresConnection(url: url)
        try db.execute("""
            ALTER TABLE positions SET TABLESPACE \(space);
            ALTER INDEX positions_pkey SET TABLESPACE \(space);
            CREATE TABLE filler (b text) TABLESPACE \(space);
            ALTER TABLE filler ALTER COLUMN b SET STORAGE PLAIN;
            """)
        // Fill the tablespace: big rows first, then single small ones, until the server says it is full.
        var full = false
        for rows in [1000, 100, 10, 1, 1, 1, 1] {
            for _ in 0..<400 {
                do {
                    try db.execute("INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, \(rows))")
                } catch let e as PostgresError where e.sqlState == .diskFull {
                    full = true
                    break
                }
            }
        }
        #expect(full, "the tablespace filled up")

        let t = try TestService { $0.database = url }
        defer { t.stop(removeData: true) }
        let stream = demoLines(tags: 3, seconds: 3)
        try t.gateway().writeAll(stream)
        let failing = t.waitFor(timeout: 20) { $0.linesIn >= lineCount(stream) && $0.historyError != nil }
        #expect(failing.linesIn == lineCount(stream) && failing.positionsOut > 0, "positioning went on: \(failing)")
        #expect(failing.historyError?.contains("53100") == true, "\(failing.historyError ?? "no error")")
        #expect(failing.historyFailures >= 1 && failing.historyDropped == 0 && failing.historyPending > 0, "\(failing)")
        let logged = t.log.waitFor("msg=\"history write failed; the rows are kept and retried", timeout: 10)
        #expect(logged.first?.contains("53100") == true, "\(logged)")

        try db.execute("DROP TABLE filler")
        let resumed = t.waitFor(timeout: 20) { $0.historyPending == 0 && $0.historyRowsWritten == $0.positionsOut }
        #expect(resumed.historyRowsWritten == resumed.positionsOut && resumed.historyDropped == 0, "\(resumed)")
        #expect(!t.log.waitFor("msg=\"history writing resumed", timeout: 10).isEmpty)
        let store = try PostgresHistoryStore(url: url)
        #expect(try store.positionCount(site: nil, tag: nil, from: nil, to: nil) == resumed.positionsOut)
    }
}
