import Foundation
import Testing
import Positioning
import SextantTestSupport
@testable import Store
@testable import Server

/// One `sextant serve` of a cluster test, run from the executable built beside the test bundle. A
/// thread reads its standard error into `lines` and signals `changed` at each, so a test waits on
/// its log lines (never on time).
final class ClusterProcess: @unchecked Sendable {
    let name: String
    private let process = Process()
    private let errors = Pipe()
    /// Shared by the processes of one test; broadcast at each line of any.
    let changed: LogSignal
    /// Guards `_lines` (invariant for `@unchecked Sendable`).
    private let lock = NSLock()
    private var _lines: [(received: Date, text: String)] = []

    init(name: String, config: String, changed: LogSignal) throws {
        self.name = name
        self.changed = changed
        let tests = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.executableURL = tests.deletingLastPathComponent().appendingPathComponent("sextant")
        process.arguments = ["serve", "--config", config]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let reader = errors.fileHandleForReading
        try process.run()
        Thread.detachNewThread { [self] in
            var pending: [UInt8] = []
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                pending += data
                while let nl = pending.firstIndex(of: 10) {
                    let text = String(decoding: pending[..<nl], as: UTF8.self)
                    pending.removeSubrange(...nl)
                    lock.withLock { _lines.append((Date(), text)) }
                    changed.bump()
                }
            }
            lock.withLock { _lines.append((Date(), "(exited)")) }
            changed.bump()
        }
    }

    var lines: [(received: Date, text: String)] { lock.withLock { _lines } }

    /// The `key=value` fields of a log line (values without spaces, or quoted).
    static func fields(_ line: String) -> [String: String] {
        var out: [String: String] = [:]
        var rest = Substring(line)
        while let eq = rest.firstIndex(of: "=") {
            let key = String(rest[..<eq]).trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: eq)...]
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let end = body.firstIndex(of: "\"") ?? body.endIndex
                out[key] = String(body[..<end])
                rest = end < body.endIndex ? body[body.index(after: end)...] : ""
            } else {
                let end = rest.firstIndex(of: " ") ?? rest.endIndex
                out[key] = String(rest[..<end])
                rest = rest[end...]
            }
        }
        return out
    }

    /// The sites it owns now and whether each one's ingest subscription was acknowledged since it was taken.
    var owned: [String: Bool] {
        var sites: [String: Bool] = [:]
        for (_, l) in lines {
            let f = Self.fields(l)
            if f["msg"] == "cluster: stopped processing every site" { sites.removeAll() }
            guard let site = f["site"] else { continue }
            switch f["msg"] {
            case "site acquired": sites[site] = false
            case "site released": sites[site] = nil
            case "site ingest subscribed": if sites[site] != nil { sites[site] = true }
            default: break
            }
        }
        return sites
    }

    /// Waits until `condition` holds on the log (checked at each new line), at most `timeout` seconds.
    static func wait(_ processes: [ClusterProcess], timeout: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        let signal = processes[0].changed
        while true {
            let seen = signal.generation
            if condition() { return true }
            guard signal.wait(after: seen, until: end) else { return condition() }
        }
    }

    /// Runs `sextant ARGUMENTS` to its end. - Returns: its standard output.
    static func run(_ arguments: [String]) throws -> String {
        let tests = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let p = Process()
        p.executableURL = tests.deletingLastPathComponent().appendingPathComponent("sextant")
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = try out.fileHandleForReading.readToEnd() ?? Data()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// SIGKILL, and waits for the exit.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM (a clean shutdown: sites released, history written), and waits for the exit.
    func terminate() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// A counter of log lines that waiters block on (the next line of any process of a test).
/// Invariant for `@unchecked Sendable`: `count` is guarded by `condition`.
final class LogSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var count = 0

    var generation: Int { condition.withLock { count } }

    func bump() { condition.withLock { count += 1; condition.broadcast() } }

    /// Blocks until a line after `seen` arrived (true) or `end` passed (false).
    func wait(after seen: Int, until end: Date) -> Bool {
        condition.withLock {
            while count == seen { if !condition.wait(until: end) { return count != seen } }
            return true
        }
    }
}

/// A loopback cluster for a test: a fresh database on the PostgreSQL of scripts/with-services, a
/// prefix of its own on the broker, copies of the demo warehouse `s0`… with one simulated tag each
/// (cut into messages of 40 lines), a subscriber to every position, and the instances `i0`….
/// Everything is stopped and removed when it goes.
final class ClusterFixture {
    let broker: (host: String, port: Int)
    let url: String
    let prefix = uniquePrefix()
    let sites: [String]
    var batches: [String: [[UInt8]]] = [:]
    let lastLine: Int64
    let subscriber: TestMQTTClient
    var processes: [ClusterProcess] = []
    private let server: String
    private let name = "sextant_cluster_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    private let dir = temporaryDirectory()

    init(instances: Int, sites count: Int, seconds: Double, takeover: Double) throws {
        broker = try testBroker()
        guard let server = ProcessInfo.processInfo.environment["SEXTANT_TEST_POSTGRES"], !server.isEmpty else {
            throw MQTTTestError("SEXTANT_TEST_POSTGRES is not set: run the tests through scripts/with-services (scripts/test does)")
        }
        self.server = server
        try PostgresConnection(url: server).execute("CREATE DATABASE \(name)")
        url = String(server[..<server.lastIndex(of: "/")!]) + "/" + name
        try FileManager.default.createDirectory(atPath: dir + "/sites", withIntermediateDirectories: true)
        sites = (0..<count).map { "s\($0)" }
        let lines = String(decoding: demoLines(tags: 1, seconds: seconds), as: UTF8.self)
        for s in sites {
            try Site.demoWarehouseJSON.replacingOccurrences(of: "\"demo-warehouse\"", with: "\"\(s)\"")
                .write(toFile: "\(dir)/sites/\(s).json", atomically: true, encoding: .utf8)
            batches[s] = messages(of: Array(lines.replacingOccurrences(of: "site=demo-warehouse", with: "site=\(s)").utf8),
                                  linesPerMessage: 40)
        }
        lastLine = lines.split(separator: "\n").last.flatMap { $0.split(separator: " ").last }.flatMap { Int64($0) } ?? 0
        subscriber = try TestMQTTClient(broker)
        try subscriber.subscribe("\(prefix)/+/tags/+/position")
        let signal = LogSignal()
        for i in 0..<instances {
            let config = """
                {"bind": "127.0.0.1", "ingestPort": 0, "feedPort": 0, "dataDirectory": "\(dir)/i\(i)", "sites": ["\(dir)/sites"],
                 "database": "\(url)", "historyMaxDelay": 0.05, "http": "127.0.0.1:0",
                 "mqtt": {"broker": "\(broker.host):\(broker.port)", "prefix": "\(prefix)", "outputQos": 1, "reconnectMaxDelay": 0.25},
                 "cluster": {"instance": "i\(i)", "takeoverSeconds": \(takeover), "snapshotSeconds": 0.5}}
                """
            try config.write(toFile: "\(dir)/i\(i).json", atomically: true, encoding: .utf8)
            processes.append(try ClusterProcess(name: "i\(i)", config: "\(dir)/i\(i).json", changed: signal))
        }
    }

    /// Waits until the instances divided the sites evenly and every owned site's ingest is subscribed.
    func waitBalanced() throws {
        let share = (sites.count + processes.count - 1) / processes.count
        let balanced = ClusterProcess.wait(processes, timeout: 30 * testTimeScale) { [self] in
            let owned = processes.map(\.owned)
            return owned.allSatisfy { $0.count <= share && $0.values.allSatisfy { $0 } } && Set(owned.flatMap(\.keys)).count == sites.count
        }
        let logs = processes.map { $0.lines.suffix(30).map(\.text).joined(separator: "\n") }.joined(separator: "\n---\n")
        try #require(balanced, "the instances did not divide the sites: \(processes.map { "\($0.name): \($0.owned)" }) \(logs)")
    }

    deinit {
        for p in processes { p.terminate() }
        try? PostgresConnection(url: server).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        try? FileManager.default.removeItem(atPath: dir)
    }
}
