// cluster-bench: several `sextant serve --cluster` processes sharing one broker and one PostgreSQL,
// next to one instance in the same run.
//
//   swift build -c release && scripts/with-services .build/release/cluster-bench [--quick]
//
// Prints: ingest throughput of six sites with 1, 2 and 3 instances (lines/s, and CPU µs per line over
// all instances, which should stay flat); the takeover after SIGKILL of an owner (seconds until its
// sites are owned and subscribed again; messages of its sites that produced no position, against the
// same count on the other sites); publish → position at a subscriber (p50, p99) with 1 and 3 instances.
// Everything (broker, database, instances, the publisher and subscriber here) shares the machine.
import Foundation
import BenchSupport
import CMosquitto
import Positioning
import Server
import Store
import Wire

/// The services of scripts/with-services, the executable beside this one, and a scratch directory.
enum Bench {
    static let environment = ProcessInfo.processInfo.environment
    static let broker = environment["SEXTANT_TEST_MQTT"].flatMap(MQTTConfig.parseBroker)
    static let database = environment["SEXTANT_TEST_POSTGRES"]
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("sextant").path
    static let work = FileManager.default.temporaryDirectory.appendingPathComponent("cluster-bench-\(getpid())").path
    static func nowNs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1e9) }
}

let quick = CommandLine.arguments.contains("--quick")
guard let broker = Bench.broker, Bench.database != nil else {
    print("cluster-bench: run it through scripts/with-services (SEXTANT_TEST_MQTT, SEXTANT_TEST_POSTGRES)")
    exit(64)
}
mosquitto_lib_init()
try FileManager.default.createDirectory(atPath: Bench.work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: Bench.work) }
let siteCount = 6
let linesPerMessage = 50


/// Simulated lines of one site (`tags` tags, `seconds` s from `start`), as messages.
func messages(site: String, tags: Int, seconds: Double, start: Int64) -> [[UInt8]] {
    var sim = SimulationConfig(tags: tags, duration: seconds)
    sim.startTime = start
    var bytes: [UInt8] = []
    Simulator(site: .demoWarehouse, config: sim).generate { IngestEncoder.append($0, to: &bytes) }
    let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "site=demo-warehouse", with: "site=\(site)")
    var out: [[UInt8]] = [], cur: [UInt8] = [], n = 0
    for b in text.utf8 {
        cur.append(b)
        if b == 10 { n += 1; if n == linesPerMessage { out.append(cur); cur = []; n = 0 } }
    }
    if !cur.isEmpty { out.append(cur) }
    return out
}
func lines(_ m: [UInt8]) -> Int { m.reduce(0) { $0 + ($1 == 10 ? 1 : 0) } }
func times(_ m: [UInt8]) -> (Int64, Int64) {
    let t = String(decoding: m, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: " ").last.flatMap { Int64($0) } }
    return (t.min() ?? 0, t.max() ?? 0)
}

/// The positions an MQTT subscriber received: (site, position time, receive time), all ns.
final class Positions: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [(site: String, time: Int64, received: Int64)] = []
    func append(_ p: (site: String, time: Int64, received: Int64)) { lock.withLock { all.append(p) } }
    var snapshot: [(site: String, time: Int64, received: Int64)] { lock.withLock { all } }
}

/// A client of the broker (for the publisher), and one that keeps the positions it receives.
func client(_ id: String) -> BenchMQTTClient { BenchMQTTClient(id, host: Bench.broker!.host, port: Bench.broker!.port) }
func positionSubscriber(_ id: String) -> (BenchMQTTClient, Positions) {
    let positions = Positions()
    let c = BenchMQTTClient(id, host: Bench.broker!.host, port: Bench.broker!.port) { m, received in
        let topic = String(cString: m.pointee.topic).split(separator: "/")
        let text = String(decoding: UnsafeRawBufferPointer(start: m.pointee.payload, count: Int(m.pointee.payloadlen)), as: UTF8.self)
        guard topic.count == 5, let r = text.range(of: "\"timeNs\":\""), let t = Int64(text[r.upperBound...].prefix { $0 != "\"" })
        else { return }
        positions.append((String(topic[1]), t, received))
    }
    return (c, positions)
}

/// One `sextant serve --cluster` child; its log lines are read on a thread.
final class Instance: @unchecked Sendable {
    let process = Process()
    let lock = NSLock()
    var log: [(Int64, String)] = []
    init(name: String, prefix: String, sites: String) throws {
        let config = """
            {"bind": "127.0.0.1", "ingestPort": 0, "feedPort": 0, "http": "127.0.0.1:0", "dataDirectory": "\(Bench.work)/\(name)",
             "sites": ["\(sites)"], "database": "\(Bench.database!)",
             "mqtt": {"broker": "\(Bench.broker!.host):\(Bench.broker!.port)", "prefix": "\(prefix)"},
             "cluster": {"instance": "\(name)"}}
            """
        try config.write(toFile: "\(Bench.work)/\(name).json", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Bench.binary)
        process.arguments = ["serve", "--config", "\(Bench.work)/\(name).json"]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            var pending: [UInt8] = []
            while true {
                let d = reader.availableData
                if d.isEmpty { break }
                pending += d
                while let nl = pending.firstIndex(of: 10) {
                    let l = String(decoding: pending[..<nl], as: UTF8.self)
                    pending.removeSubrange(...nl)
                    lock.withLock { log.append((Bench.nowNs(), l)) }
                }
            }
        }
    }
    /// Sites acquired and subscribed, not released (from the log).
    var owned: Set<String> {
        var s: [String: Bool] = [:]
        for (_, l) in lock.withLock({ log }) {
            guard let site = l.split(separator: " ").first(where: { $0.hasPrefix("site=") })?.dropFirst(5) else { continue }
            if l.contains("msg=\"site acquired\"") { s[String(site)] = false }
            if l.contains("msg=\"site released\"") { s[String(site)] = nil }
            if l.contains("msg=\"site ingest subscribed\""), s[String(site)] != nil { s[String(site)] = true }
        }
        return Set(s.filter(\.value).keys)
    }
    /// CPU seconds used so far (utime + stime of /proc/PID/stat).
    var cpu: Double {
        guard let s = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = s.lastIndex(of: ")") else { return 0 }
        let f = s[s.index(after: close)...].split(separator: " ")
        return (Double(f[11]) ?? 0) / 100 + (Double(f[12]) ?? 0) / 100
    }
    func kill() { Foundation.kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    func stop() { if process.isRunning { process.terminate() }; process.waitUntilExit() }
}

nonisolated(unsafe) var phase = 0
/// Starts `n` instances on six fresh sites and waits until they divided them.
func cluster(_ n: Int) throws -> (prefix: String, sites: [String], instances: [Instance]) {
    phase += 1
    let prefix = "cb\(getpid())p\(phase)"
    let sites = (0..<siteCount).map { "\(prefix)-s\($0)" }
    let dir = "\(Bench.work)/sites\(phase)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for s in sites {
        try Site.demoWarehouseJSON.replacingOccurrences(of: "\"demo-warehouse\"", with: "\"\(s)\"")
            .write(toFile: "\(dir)/\(s).json", atomically: true, encoding: .utf8)
    }
    let instances = try (0..<n).map { try Instance(name: "\(prefix)-i\($0)", prefix: prefix, sites: dir) }
    let share = (siteCount + n - 1) / n
    let end = Date().addingTimeInterval(60)
    var balanced = false
    while Date() < end && !balanced {
        let o = instances.map(\.owned)
        balanced = Set(o.flatMap { $0 }).count == siteCount && o.allSatisfy({ $0.count <= share })
        if !balanced { usleep(20_000) }
    }
    if !balanced { print("(phase \(phase): the \(n) instances did not divide the sites: \(instances.map { $0.owned.sorted() }))") }
    return (prefix, sites, instances)
}

func percentile(_ v: [Double], _ p: Double) -> Double {
    guard !v.isEmpty else { return .nan }
    let s = v.sorted()
    return s[min(s.count - 1, Int(Double(s.count - 1) * p))]
}

// 1. Throughput with 1, 2, 3 instances.
let tags = quick ? 100 : 300, seconds = quick ? 4.0 : 10.0
print("cluster-bench: 6 sites x \(tags) tags x \(seconds) s simulated, \(linesPerMessage) lines a message, QoS 1\n")
print("| instances | lines/s | vs 1 instance | CPU µs per line (all instances) |")
print("|---|---|---|---|")
var baseline = 0.0
for n in 1...3 {
    let (prefix, sites, instances) = try cluster(n)
    let load = sites.map { messages(site: $0, tags: tags, seconds: seconds, start: 1_700_000_000_000_000_000) }
    let total = load.reduce(0) { $0 + $1.reduce(0) { $0 + lines($1) } }
    let last = load.map { times($0.last!).1 }
    let (sub, received) = positionSubscriber("\(prefix)-sub"), pub = client("\(prefix)-pub")
    sub.subscribe("\(prefix)/+/tags/+/position", settle: 0.3)
    let cpu0 = instances.reduce(0) { $0 + $1.cpu }
    let start = Date()
    var sent = 0
    for k in 0..<load[0].count { for (i, s) in sites.enumerated() where k < load[i].count { pub.publish("\(prefix)/\(s)/ingest", load[i][k]); sent += 1 } }
    pub.waitAcked(sent)
    // Done when every site's newest position is within a second of its last line.
    while true {
        let newest = Dictionary(received.snapshot.map { ($0.site, $0.time) }, uniquingKeysWith: max)
        if sites.indices.allSatisfy({ (newest[sites[$0]] ?? 0) >= last[$0] - 1_000_000_000 }) { break }
        if Date().timeIntervalSince(start) > 300 { print("(timed out)"); break }
        usleep(2_000)
    }
    let elapsed = Date().timeIntervalSince(start)
    let cpu = instances.reduce(0) { $0 + $1.cpu } - cpu0
    let rate = Double(total) / elapsed
    if n == 1 { baseline = rate }
    print("| \(n) | \(Int(rate)) | \(String(format: "%.2f", rate / baseline)) | \(String(format: "%.2f", cpu / Double(total) * 1e6)) |")
    for i in instances { i.stop() }
    try forget(sites)
}

/// Removes a phase's sites from the database, which every instance of the next phase would load too.
func forget(_ sites: [String]) throws {
    let store = try PostgresHistoryStore(url: Bench.database!)
    for s in sites { try store.removeSite(id: s) }
}

// 2. Takeover after SIGKILL, with lines stamped with the wall clock and published when due.
func paced(_ n: Int, seconds: Double, tags: Int, kill killAfter: Double?) throws -> (latencies: [Double], takeover: Double?, lost: (Int, Int, Int, Int)) {
    let (prefix, sites, instances) = try cluster(n)
    let start = Bench.nowNs() + 500_000_000
    let load = sites.map { messages(site: $0, tags: tags, seconds: seconds, start: start) }
    let (sub, received) = positionSubscriber("\(prefix)-sub"), pub = client("\(prefix)-pub")
    sub.subscribe("\(prefix)/+/tags/+/position", settle: 0.3)
    var schedule: [(due: Int64, site: Int, k: Int)] = []
    for (i, m) in load.enumerated() { for (k, msg) in m.enumerated() { schedule.append((times(msg).1, i, k)) } }
    schedule.sort { $0.due < $1.due }
    var killedAt: Int64?, victimSites: Set<String> = []
    for item in schedule {
        let wait = item.due - Bench.nowNs()
        if wait > 0 { usleep(UInt32(wait / 1000)) }
        if let k = killAfter, killedAt == nil, item.due >= start + Int64(k * 1e9) {
            victimSites = instances[0].owned
            killedAt = Bench.nowNs()
            instances[0].kill()
        }
        pub.publish("\(prefix)/\(sites[item.site])/ingest", load[item.site][item.k])
    }
    pub.waitAcked(schedule.count)
    let endWait = Date().addingTimeInterval(10)
    while Date() < endWait {
        let newest = Dictionary(received.snapshot.map { ($0.site, $0.time) }, uniquingKeysWith: max)
        if sites.indices.allSatisfy({ (newest[sites[$0]] ?? 0) >= times(load[$0].last!).1 - 1_000_000_000 }) { break }
        usleep(5_000)
    }
    var takeover: Double?
    if let k = killedAt {
        let acquired = instances.dropFirst().flatMap { i in i.lock.withLock { i.log }.filter { l in
            l.0 >= k && l.1.contains("msg=\"site ingest subscribed\"") && victimSites.contains { l.1.contains("site=\($0) ") }
        }.map(\.0) }
        if acquired.count >= victimSites.count { takeover = Double(acquired.max()! - k) / 1e9 }
    }
    // Messages published after the kill whose lines produced no position: on the victim's sites and the others.
    let positions = received.snapshot
    var bySite: [String: [Int64]] = [:]
    for p in positions { bySite[p.site, default: []].append(p.time) }
    for k in bySite.keys { bySite[k]!.sort() }
    var lost = (0, 0, 0, 0)   // victim: without position, published; others: without, published
    if let k = killedAt {
        for (i, s) in sites.enumerated() {
            for m in load[i] where times(m).0 >= k - 1_000_000_000 {
                let (a, b) = times(m)
                let t = bySite[s] ?? []
                var lo = 0, hi = t.count
                while lo < hi { let mid = (lo + hi) / 2; if t[mid] < a { lo = mid + 1 } else { hi = mid } }
                let hit = lo < t.count && t[lo] <= b
                if victimSites.contains(s) { lost.1 += 1; if !hit { lost.0 += 1 } } else { lost.3 += 1; if !hit { lost.2 += 1 } }
            }
        }
    }
    let latencies = positions.map { Double($0.received - $0.time) / 1e6 }
    for i in instances { i.stop() }
    try forget(sites)
    return (latencies, takeover, lost)
}

let t = try paced(3, seconds: quick ? 6 : 10, tags: 20, kill: quick ? 2 : 4)
print("\ntakeover after SIGKILL of one of 3 instances (default takeoverSeconds 4):")
print("  sites owned and subscribed again after \(t.takeover.map { String(format: "%.2f s", $0) } ?? "(not taken over)")")
print("  messages from 1 s before the kill without any position: \(t.lost.0) of \(t.lost.1) on its sites, \(t.lost.2) of \(t.lost.3) on the others")

print("\npublish → position at a subscriber, lines stamped with the wall clock, 6 sites x 20 tags:")
print("| instances | positions | p50 ms | p99 ms |")
print("|---|---|---|---|")
for n in [1, 3] {
    let r = try paced(n, seconds: quick ? 4 : 8, tags: 20, kill: nil)
    print("| \(n) | \(r.latencies.count) | \(String(format: "%.2f", percentile(r.latencies, 0.5))) | \(String(format: "%.2f", percentile(r.latencies, 0.99))) |")
}
