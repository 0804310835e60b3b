// service-bench: figures of the live service over loopback TCP, with SQLite history on.
//
//   swift run -c release service-bench [--quick]
//
// Prints: sustained ingest from 8 gateway connections (target ≥ 300,000 lines/s), measurement-to-feed
// latency at 50,000 lines/s (median and p99, target p99 ≤ 5 ms), history rows written per second
// (target ≥ 100,000/s), and resident memory with 10,000 live tags. The load generators run in this
// process, on the same 2 cores as the service.
import Foundation
import BenchSupport
import Numerics
import Positioning
import Server
import Store
import Wire

// Like `sextant`: one BLAS thread, set before any LAPACK call (OpenBLAS's worker stays idle).
LAPACK.useOneThread()

if CommandLine.arguments.contains("--help") || CommandLine.arguments.contains("-h") {
    print("""
        USAGE: service-bench [--quick] [--latency-without-history]

        Runs the live service in this process over loopback TCP and prints: sustained ingest from 8
        gateways with history on (target ≥ 300,000 lines/s), history rows/s, measurement-to-feed latency
        at 50,000 lines/s (target p99 ≤ 5 ms), and memory with 10,000 live tags.
          --quick                      shorter runs
          --latency-without-history    only the latency figure, with history off
        """)
    exit(0)
}
let quick = CommandLine.arguments.contains("--quick")

// Child mode: the latency client alone, against a service started by the parent. It prints the lines
// sent, the seconds, then every latency (ms), whitespace-separated.
if let i = CommandLine.arguments.firstIndex(of: "--latency-client"), CommandLine.arguments.count > i + 2,
   let ingest = UInt16(CommandLine.arguments[i + 1]), let feed = UInt16(CommandLine.arguments[i + 2]) {
    let run = try runLatencyClient(site: site("bench-latency"), ingestPort: ingest, feedPort: feed, quick: quick,
                                   tagPrefix: "P")
    print(run.sent, run.seconds, run.latencies.map { String($0) }.joined(separator: " "))
    exit(0)
}
let logger = Logger.silent

/// The demo warehouse under another id (one per gateway, so each connection's stream is time-ordered).
func site(_ id: String) -> Site {
    let d = Site.demoWarehouse
    return Site(id: id, name: id, dimensions: d.dimensions, tagHeight: d.tagHeight, bounds: d.bounds,
                anchors: d.anchors, zones: d.zones)
}

func simulatedLines(site: Site, tags: Int, seconds: Double, prefix: String = "T") -> (bytes: [UInt8], lines: Int) {
    var sim = SimulationConfig(tags: tags, duration: seconds)
    sim.tagPrefix = prefix
    // Stamped in the seconds that end now, since they are sent at once: the service refuses lines
    // more than `maxClockAhead` (2 s) ahead of its clock as clock_skew, and accepts old ones.
    sim.startTime = ServiceClock.wallNow() - Int64(seconds * 1e9)
    var bytes: [UInt8] = []
    var lines = 0
    Simulator(site: site, config: sim).generate { if IngestEncoder.append($0, to: &bytes) { lines += 1 } }
    return (bytes, lines)
}

func makeHost(sites: [Site], _ configure: (inout ServiceConfig) -> Void = { _ in }) throws -> ServiceHost {
    var c = ServiceConfig()
    c.ingestPort = 0
    c.feedPort = 0
    c.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-bench-\(UUID().uuidString)").path
    configure(&c)
    let host = try ServiceHost(config: c, imports: sites.map { SiteFile(site: $0, json: $0.jsonBytes(), path: $0.id) },
                               logger: logger)
    try host.service.start()
    return host
}

func waitFor(_ service: Service, timeout: Double, _ condition: (ServiceStats) -> Bool) -> ServiceStats {
    let end = Date().addingTimeInterval(timeout)
    var s = service.stats()
    while !condition(s) && Date() < end { usleep(2_000); s = service.stats() }
    return s
}

func rssMegabytes() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = Double(text.split(separator: " ")[1]) ?? 0
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1e6
}

/// The CPU time (s) of this process's thread with that name (Linux: /proc/self/task/*/schedstat).
func threadCPUSeconds(named name: String) -> Double? {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
    for t in tasks {
        guard let comm = try? String(contentsOfFile: "/proc/self/task/\(t)/comm", encoding: .utf8),
              comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
              let stat = try? String(contentsOfFile: "/proc/self/task/\(t)/schedstat", encoding: .utf8),
              let ns = Double(stat.split(separator: " ").first ?? "") else { continue }
        return ns * 1e-9
    }
    return nil
}

func fmt(_ v: Double, _ d: Int = 0) -> String { String(format: "%.\(d)f", v) }

print("service-bench\(quick ? " --quick" : ""): loopback TCP, history on (SQLite WAL), \(ProcessInfo.processInfo.activeProcessorCount) cores")

// 1. Sustained ingest from 8 gateways, and history rows/s.
do {
    let sites = (0..<8).map { site("bench-\($0)") }
    let perGateway = quick ? 60 : 150   // tags per gateway
    let seconds = quick ? 6.0 : 12.0
    let streams = sites.map { simulatedLines(site: $0, tags: perGateway, seconds: seconds) }
    let total = streams.reduce(0) { $0 + $1.lines }
    let host = try makeHost(sites: sites)
    let service = host.service
    let port = service.ingestPort
    // The loop thread names itself once running: wait for the name, or the figure is silently missing.
    var loopBefore = threadCPUSeconds(named: Service.loopThreadName)
    for _ in 0..<200 where loopBefore == nil {
        usleep(5_000)
        loopBefore = threadCPUSeconds(named: Service.loopThreadName)
    }
    let started = Date()
    DispatchQueue.concurrentPerform(iterations: 8) { i in
        guard let g = try? Socket.connect(host: "127.0.0.1", port: port) else { return }
        streams[i].bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = min(256 * 1024, raw.count - offset)
                try? g.writeAll(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + n)]))
                offset += n
            }
        }
    }
    let s = waitFor(service, timeout: 120) { $0.linesIn >= total }
    let ingestSeconds = Date().timeIntervalSince(started)
    let loopCPU = threadCPUSeconds(named: Service.loopThreadName).flatMap { a in loopBefore.map { a - $0 } }
    let h = waitFor(service, timeout: 60) { $0.historyRowsWritten >= $0.positionsOut }
    let historySeconds = Date().timeIntervalSince(started)
    let rate = Double(s.linesIn) / ingestSeconds
    print("ingest, 8 gateways:      \(fmt(rate)) lines/s  (\(s.linesIn) lines in \(fmt(ingestSeconds, 2)) s, "
          + "\(s.positionsOut) positions, \(s.rejectedTotal) rejected)   target ≥ 300000  \(rate >= 300_000 ? "met" : "NOT MET")")
    if let loopCPU {
        print("    service loop thread: \(fmt(loopCPU * 1e6 / Double(max(1, s.linesIn)), 2)) µs of CPU per line while saturated")
    }
    print("history during ingest:   \(fmt(Double(h.historyRowsWritten) / historySeconds)) rows/s  "
          + "(\(h.historyRowsWritten) rows committed \(fmt(historySeconds - ingestSeconds, 2)) s after the last line, dropped \(h.historyDropped))")
    service.shutdown()
    try? FileManager.default.removeItem(atPath: host.service.config.dataDirectory)
}

// 2. History writer alone: how fast positions are committed.
do {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-bench-\(UUID().uuidString)").path
    let store = try HistoryStore(directory: dir)
    let writer = store.makeWriter()
    let n = quick ? 200_000 : 1_000_000
    let t0 = ServiceClock.wallNow()
    let started = Date()
    for i in 0..<n {
        writer.append(PositionEstimate(site: "s", tag: "T\(i % 1000)", position: .init(1, 2, 1.2), velocity: .init(0, 0, 0),
                                       covXX: 0.01, covXY: 0, covYY: 0.01, anchors: 5, motion: .moving,
                                       time: t0 + Int64(i / 1000) * 100_000_000))
    }
    let rows = writer.flush()
    let seconds = Date().timeIntervalSince(started)
    writer.close()
    print("history writer alone:    \(fmt(Double(rows) / seconds)) rows/s  (\(rows) positions, 1000 tags)   target ≥ 100000  \(Double(rows) / seconds >= 100_000 ? "met" : "NOT MET")")
    try? FileManager.default.removeItem(atPath: dir)
}

// 3. Latency at 50,000 lines/s: ranging lines stamped with the send time; the feed client measures
// receive time minus the position's time (the time of the measurement that produced it).
do {
    let s = site("bench-latency")
    let withHistory = !CommandLine.arguments.contains("--latency-without-history")
    let host = withHistory ? try makeHost(sites: [s]) : nil
    let service: Service
    if let host { service = host.service } else {
        var c = ServiceConfig()
        c.ingestPort = 0
        c.feedPort = 0
        service = try Service(config: c, sites: [s], logger: logger)
        try service.start()
    }
    let probe = MachineProbe()
    defer { probe.stop() }
    var lastRunLines = 1
    /// Prints a run's figures; returns its p99 (nil when nothing was received).
    @discardableResult
    func report(_ run: LatencyRun, _ label: String, floor: Double? = nil) -> Double? {
        defer { print("    " + probe.summary()); probe.reset() }
        let l = run.latencies
        guard !l.isEmpty else { print("latency (\(label)): no positions received"); return nil }
        let p50 = l[l.count / 2], p99 = l[min(l.count - 1, Int(Double(l.count) * 0.99))]
        lastRunLines = run.sent
        if label.hasPrefix("floor") || label.hasPrefix("relay") {
            print("  \(label) @ \(fmt(Double(run.sent) / run.seconds)) lines/s: median \(fmt(p50, 2)) ms, p99 \(fmt(p99, 2)) ms, "
                  + "max \(fmt(l.last!, 2)) ms  (\(l.count) lines relayed)")
            return p99
        }
        let versus = floor.map { "; floor p99 \(fmt($0, 2)) ms just before, ratio \(fmt(p99 / $0, 2))×" } ?? ""
        print("feed latency @ \(fmt(Double(run.sent) / run.seconds)) lines/s, \(label): median \(fmt(p50, 2)) ms, "
              + "p99 \(fmt(p99, 2)) ms, max \(fmt(l.last!, 2)) ms  (\(l.count) positions\(withHistory ? "" : ", history off")\(versus))"
              + "   target p99 ≤ 5 ms  \(p99 <= 5 ? "met" : "NOT MET")")
        return p99
    }
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    func clientCommand(_ ingest: UInt16, _ feed: UInt16) -> [String] {
        [me, "--latency-client", "\(ingest)", "\(feed)"] + (quick ? ["--quick"] : [])
    }
    let clientArguments = clientCommand(service.ingestPort, service.feedPort)
    @discardableResult
    func childRun(_ label: String, command: [String], floor: Double? = nil) -> Double? {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: command[0])
        child.arguments = Array(command.dropFirst())
        let pipe = Pipe()
        child.standardOutput = pipe
        do { try child.run() } catch {
            print("latency (\(label)): cannot start the client: \(error)")
            return nil
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let numbers = output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        if numbers.count >= 2 {
            return report(LatencyRun(sent: Int(numbers[0]), seconds: numbers[1], latencies: Array(numbers.dropFirst(2))),
                          label, floor: floor)
        }
        print("latency (\(label)): the client failed: \(output)")
        return nil
    }
    let taskset = "/usr/bin/taskset"
    // Before each run of the service, the same client against a relay that does no positioning
    // (`NullRelay`): the floor that the machine, loopback TCP and the client set by themselves.
    var lastRelayCPUPerLine: Double?
    // SERVICE_BENCH_RELAY_WORK=N: the floor runs do N multiply-adds per line (a sweep of CPU per line).
    let floorWork = Int(ProcessInfo.processInfo.environment["SERVICE_BENCH_RELAY_WORK"] ?? "") ?? 0
    func floorRun(inProcess: Bool, pinned: Bool = false, workPerLine requested: Int? = nil) -> Double? {
        let workPerLine = requested ?? floorWork
        guard let relay = try? NullRelay(workPerLine: workPerLine) else { print("  floor: cannot listen"); return nil }
        let label = (requested != nil ? "relay at the service loop's CPU per line"
                     : workPerLine > 0 ? "floor (a relay with \(workPerLine) multiply-adds per line)" : "floor (a relay without positioning)")
            + ", client " + (inProcess ? "in this process" : "in its own process") + (pinned ? ", pinned apart" : "")
        let p99: Double?
        if inProcess {
            guard let run = try? runLatencyClient(site: s, ingestPort: relay.ingestPort, feedPort: relay.feedPort,
                                                  quick: quick, tagPrefix: "F") else { return nil }
            p99 = report(run, label)
        } else {
            p99 = childRun(label, command: (pinned ? [taskset, "-c", "0"] : []) + clientCommand(relay.ingestPort, relay.feedPort))
        }
        relay.wait()
        print("    relay thread: \(fmt(relay.cpuPerLine, 2)) µs of CPU per line")
        if requested == nil && workPerLine == 0 { lastRelayCPUPerLine = relay.cpuPerLine }
        return p99
    }
    // The gateway and the dashboard in this process (sharing its threads' cores with the service) …
    var floor = floorRun(inProcess: true)
    report(try runLatencyClient(site: s, ingestPort: service.ingestPort, feedPort: service.feedPort, quick: quick),
           "client in this process", floor: floor)
    // … and in a process of their own, as real gateways and dashboards are; then once more with the
    // service's threads on CPU 1 and the client's on CPU 0 (taskset), so that the two do not take
    // turns on one core: what a deployment with the gateways elsewhere sees.
    floor = floorRun(inProcess: false)
    let loopBefore = threadCPUSeconds(named: Service.loopThreadName)
    childRun("client in its own process", command: clientArguments, floor: floor)
    // The loop thread's CPU per line in that run, and the relay made to spend as much (fixed
    // arithmetic per line): whether a tail comes from what the service does, or from how much CPU
    // per line any program spends on this machine.
    if let before = loopBefore, let after = threadCPUSeconds(named: Service.loopThreadName),
       let relayCPU = lastRelayCPUPerLine {
        let perLine = (after - before) * 1e6 / Double(lastRunLines)
        let extra = Int(max(0, perLine - relayCPU) * 1000 / NullRelay.nanosecondsPerUnit)
        print("    service loop thread: \(fmt(perLine, 2)) µs of CPU per line; next, the relay with \(extra) multiply-adds per line added to match it")
        _ = floorRun(inProcess: false, workPerLine: extra)
    }
    if FileManager.default.isExecutableFile(atPath: taskset), ProcessInfo.processInfo.activeProcessorCount >= 2 {
        let pid = "\(getpid())"
        func pin(_ cpus: String) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: taskset)
            p.arguments = ["-a", "-p", "-c", cpus, pid]
            p.standardOutput = FileHandle.nullDevice
            try? p.run()
            p.waitUntilExit()
        }
        pin("1")
        floor = floorRun(inProcess: false, pinned: true)
        childRun("client in its own process, pinned apart", command: [taskset, "-c", "0"] + clientArguments, floor: floor)
        pin("0-\(ProcessInfo.processInfo.activeProcessorCount - 1)")
    } else {
        print("latency (pinned apart): skipped (needs taskset and 2 CPUs)")
    }
    service.shutdown()
    try? FileManager.default.removeItem(atPath: service.config.dataDirectory)
}

if CommandLine.arguments.contains("--latency-without-history") { exit(0) }

// 4. Memory with 10,000 live tags.
do {
    let tags = 10_000
    let s = site("bench-memory")
    let (bytes, lines) = simulatedLines(site: s, tags: tags, seconds: quick ? 1.2 : 2)
    let host = try makeHost(sites: [s])
    let service = host.service
    let g = try Socket.connect(host: "127.0.0.1", port: service.ingestPort)
    try g.writeAll(bytes)
    let st = waitFor(service, timeout: 120) { $0.linesIn >= lines }
    _ = waitFor(service, timeout: 30) { $0.historyRowsWritten >= $0.positionsOut }
    let after = rssMegabytes()
    print("memory, \(st.tags) live tags: process RSS \(fmt(after)) MB (the whole benchmark process, including "
          + "the \(fmt(Double(bytes.count) / 1e6)) MB generated stream; \(lines) lines ingested)")
    service.shutdown()
    try? FileManager.default.removeItem(atPath: service.config.dataDirectory)
}

final class LockedArray: @unchecked Sendable {
    private var values: [Double] = []
    /// Receive times (Unix ns) beside the values, for `SERVICE_BENCH_TRACE`.
    private var times: [Int64] = []
    private let lock = NSLock()
    func append(_ v: Double, at t: Int64 = 0) { lock.withLock { values.append(v); times.append(t) } }
    func reset() { lock.withLock { values.removeAll(); times.removeAll() } }
    func sorted() -> [Double] { lock.withLock { values.sorted() } }
    /// `receive_ns latency_ms` lines in arrival order.
    func trace() -> String { lock.withLock { zip(times, values).map { "\($0) \($1)\n" }.joined() } }
}

final class LockedFlag: @unchecked Sendable {
    private var v = false
    private let lock = NSLock()
    var value: Bool {
        get { lock.withLock { v } }
        set { lock.withLock { v = newValue } }
    }
}
