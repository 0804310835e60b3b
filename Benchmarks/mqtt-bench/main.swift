// mqtt-bench: MQTT in and out of the live service through a real broker, next to the TCP port in the
// same run.
//
//   scripts/with-services swift run -c release mqtt-bench [--quick]      (the broker of SEXTANT_TEST_MQTT)
//   swift run -c release mqtt-bench --broker HOST:PORT [--quick]
//   … mqtt-bench --phases tcp,broker,out-on,out-off,latency,restart [--seconds S]
//        (only the phases named; S seconds of simulated lines; for profiling one phase)
//
// Prints: ingest lines/s over TCP (baseline), through the broker alone (a plain subscriber: the broker's
// ceiling) and through the broker into positions, with 50 lines a message (target ≥ 500,000 lines/s, or
// the broker's ceiling if lower, with the ratio); publish → position at an MQTT subscriber at 50,000
// lines/s (p50, p99; target p99 ≤ 10 ms); a restart of the service during QoS 1 ingest (lines lost,
// target 0). The publishers and subscribers run in this process, on the same cores as the service
// and the broker.
import Foundation
import BenchSupport
import CMosquitto
import Numerics
import Positioning
import Server
import Wire

LAPACK.useOneThread()
let args = CommandLine.arguments
let quick = args.contains("--quick")
let phases = Set((args.firstIndex(of: "--phases").map { args[$0 + 1] } ?? "tcp,broker,out-on,out-off,latency,restart")
    .split(separator: ",").map(String.init))
guard let brokerText = args.firstIndex(of: "--broker").map({ args[$0 + 1] }) ?? ProcessInfo.processInfo.environment["SEXTANT_TEST_MQTT"],
      let broker = MQTTConfig.parseBroker(brokerText) else {
    print("mqtt-bench: give --broker HOST:PORT, or run it through scripts/with-services (SEXTANT_TEST_MQTT)")
    exit(64)
}
mosquitto_lib_init()
let linesPerMessage = 50
let site = Site.demoWarehouse

func simulated(tags: Int, seconds: Double, start: Int64, prefix: String) -> [UInt8] {
    var sim = SimulationConfig(tags: tags, duration: seconds)
    sim.tagPrefix = prefix
    sim.startTime = start
    var bytes: [UInt8] = []
    Simulator(site: site, config: sim).generate { IngestEncoder.append($0, to: &bytes) }
    return bytes
}

/// Messages of `linesPerMessage` lines.
func chunk(_ bytes: [UInt8]) -> [[UInt8]] {
    var out: [[UInt8]] = [], cur: [UInt8] = [], n = 0
    for b in bytes {
        cur.append(b)
        if b == 10 { n += 1; if n == linesPerMessage { out.append(cur); cur = []; n = 0 } }
    }
    if !cur.isEmpty { out.append(cur) }
    return out
}

func lineCount(_ m: [[UInt8]]) -> Int { m.reduce(0) { $0 + $1.reduce(0) { $0 + ($1 == 10 ? 1 : 0) } } }

/// A load client of the broker (BenchSupport).
func loadClient(_ id: String, _ broker: (host: String, port: Int, tls: Bool),
            onMessage: ((UnsafePointer<mosquitto_message>, Int64) -> Void)? = nil) -> BenchMQTTClient {
    BenchMQTTClient(id, host: broker.host, port: broker.port, onMessage: onMessage)
}

@discardableResult
func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while !condition() { if Date() > end { return false }; usleep(1000) }
    return true
}

func service(prefix: String, clientID: String? = nil, output: Bool = true) throws -> Service {
    var c = ServiceConfig()
    c.ingestPort = 0
    c.feedPort = 0
    c.maxClockAhead = 0
    var m = MQTTConfig()
    m.host = broker.host
    m.port = broker.port
    m.prefix = prefix
    m.clientID = clientID ?? prefix
    if !output { m.outputs = [] }
    c.mqtt = m
    let s = try Service(config: c, sites: [site], logger: .silent)
    try s.start()
    waitUntil(10) { (s.stats().mqtt?.inConnected ?? 0) == 1 }
    return s
}

let seconds = args.firstIndex(of: "--seconds").flatMap { Double(args[$0 + 1]) } ?? (quick ? 4.0 : 10.0)
let tags = 2000
let start = ServiceClock.wallNow() - Int64(seconds * 1e9)
let load = simulated(tags: tags, seconds: seconds, start: start, prefix: "T")
let messages = chunk(load)
let total = lineCount(messages)
let brokerPID = CPUAccount.listener(port: broker.port)
let cores = ProcessInfo.processInfo.activeProcessorCount
print("mqtt-bench: broker \(broker.host):\(broker.port)\(brokerPID.map { " (pid \($0))" } ?? " (not on this machine: its CPU is not counted)"), \(total) lines in \(messages.count) messages of \(linesPerMessage) lines, \(tags) tags")

nonisolated(unsafe) var tcpRate = Double.nan
// 1. TCP baseline: one gateway connection.
if phases.contains("tcp") {
    var c = ServiceConfig(); c.ingestPort = 0; c.feedPort = 0; c.maxClockAhead = 0
    let s = try Service(config: c, sites: [site], logger: .silent)
    try s.start()
    let g = try Socket.connect(host: "127.0.0.1", port: s.ingestPort)
    let t0 = Date()
    let cpu0 = CPUAccount.now(brokerPID: nil)
    try g.writeAll(load)
    waitUntil(120) { s.stats().linesIn >= total }
    let dt = Date().timeIntervalSince(t0)
    print(String(format: "TCP ingest (1 connection)            %10.0f lines/s", Double(total) / dt))
    let cpu = CPUAccount.now(brokerPID: nil) - cpu0
    print("  " + cpu.perLine(total, cores: cores))
    print(String(format: "  loop thread: %d wake-ups, %d times preempted (%.2f, %.2f per 50 lines)", cpu.loopWakeUps, cpu.loopPreempted,
                 Double(cpu.loopWakeUps) / Double(messages.count), Double(cpu.loopPreempted) / Double(messages.count)))
    s.shutdown()
    tcpRate = Double(total) / dt
}

// 2. The broker alone: publisher → broker → a plain QoS 1 subscriber.
var ceiling = Double.nan
if phases.contains("broker") {
    let topic = "bench-ceiling/\(UUID().uuidString.prefix(6))"
    let sub = loadClient("bench-sub", broker); sub.subscribe(topic)
    let pub = loadClient("bench-pub", broker)
    let t0 = Date()
    let cpu0 = CPUAccount.now(brokerPID: brokerPID)
    for m in messages { pub.publish(topic, m) }
    waitUntil(120) { sub.counts.received >= messages.count }
    let dt = Date().timeIntervalSince(t0)
    ceiling = Double(total) / dt
    print(String(format: "broker alone (QoS 1, plain subscriber) %8.0f lines/s", ceiling))
    print("  " + (CPUAccount.now(brokerPID: brokerPID) - cpu0).perLine(total, cores: cores))
}

// 3. Through the broker into positions: with MQTT out publishing every position (as a service with
// outputs does), then with MQTT out off (the ingest path alone).
for output in [true, false] where phases.contains(output ? "out-on" : "out-off") {
    let prefix = "bench-\(UUID().uuidString.prefix(6))"
    let s = try service(prefix: prefix, output: output)
    let pub = loadClient("bench-pub-\(output ? 2 : 3)", broker)
    let t0 = Date()
    let cpu0 = CPUAccount.now(brokerPID: brokerPID)
    for m in messages { pub.publish("\(prefix)/\(site.id)/ingest", m) }
    waitUntil(120) { s.stats().linesIn >= total }
    let dt = Date().timeIntervalSince(t0)
    let cpu = CPUAccount.now(brokerPID: brokerPID) - cpu0
    let st = s.stats()
    let rate = Double(total) / dt
    let target = min(500_000, ceiling)
    print(String(format: "MQTT ingest into positions (QoS 1), MQTT out %@ %8.0f lines/s  (%.2f of TCP, %.2f of the broker alone; target %.0f: %@)",
                 output ? "on: " : "off:", rate, rate / tcpRate, rate / ceiling, target, rate >= target ? "met" : "MISSED"))
    print("  " + cpu.perLine(total, cores: cores))
    print(String(format: "  loop thread: %d wake-ups, %d times preempted (%.2f, %.2f per message)", cpu.loopWakeUps, cpu.loopPreempted,
                 Double(cpu.loopWakeUps) / Double(messages.count), Double(cpu.loopPreempted) / Double(messages.count)))
    print("  applied \(st.eventsApplied), positions \(st.positionsOut), MQTT out published \(st.mqtt?.outPublished ?? 0), dropped \(st.mqtt?.outDropped ?? 0), inbox waits \(st.mqtt?.inboxWaits ?? 0)")
    s.shutdown()
}

// 4. Latency: publish at 50,000 lines/s, stamped now; a subscriber reads the JSON positions.
if phases.contains("latency") {
    let prefix = "bench-\(UUID().uuidString.prefix(6))"
    let s = try service(prefix: prefix)
    let latSeconds = quick ? 3.0 : 6.0
    // 1,250 tags of the demo site make about 50,000 lines/s (about 40 lines/s per tag).
    let lead: Int64 = 2_000_000_000   // time to generate the stream before its first line is due
    let t0 = ServiceClock.wallNow() + lead
    var probe = simulated(tags: 1250, seconds: latSeconds, start: t0, prefix: "L")
    let ms = chunk(probe); probe = []
    let lines = lineCount(ms)
    let samples = NSLock()
    nonisolated(unsafe) var latencies: [Double] = []
    let sub = loadClient("bench-lat-sub", broker) { m, now in
        let text = String(decoding: UnsafeRawBufferPointer(start: m.pointee.payload, count: Int(m.pointee.payloadlen)), as: UTF8.self)
        guard let r = text.range(of: "\"timeNs\":\""), let end = text[r.upperBound...].firstIndex(of: "\""),
              let t = Int64(text[r.upperBound..<end]) else { return }
        samples.withLock { latencies.append(Double(now - t) / 1e6) }
    }
    sub.subscribe("\(prefix)/+/tags/+/position")
    // The same positions on the TCP feed of the same service: the ingest half (publisher → broker →
    // service) alone, so that the MQTT figure minus this one is the output half.
    let feed = try Socket.connect(host: "127.0.0.1", port: s.feedPort)
    try feed.writeAll(Array("subscribe kinds=position\n".utf8))
    feed.setReceiveTimeout(0.2)
    nonisolated(unsafe) var feedLatencies: [Double] = []
    nonisolated(unsafe) var feedStop = false
    let feedDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        var splitter = LineSplitter()
        while !samples.withLock({ feedStop }) {
            guard let bytes = try? feed.read(), !bytes.isEmpty else { continue }
            let now = ServiceClock.wallNow()
            bytes.withUnsafeBytes { raw in
                splitter.feed(raw) { piece in
                    guard case .line(_, let b) = piece, b.first == UInt8(ascii: "p"), let sp = b.lastIndex(of: 32),
                          let t = Int64(String(decoding: b[(sp + 1)...], as: UTF8.self)) else { return }
                    samples.withLock { feedLatencies.append(Double(now - t) / 1e6) }
                }
            }
        }
        feedDone.signal()
    }
    usleep(200_000)
    // The host's own stalls during the phase: on a shared virtual machine they set much of the tail.
    let machine = MachineProbe()
    let pub = loadClient("bench-lat-pub", broker)
    let topic = "\(prefix)/\(site.id)/ingest"
    for m in ms {
        // Publish a message once the newest line in it is due (its timestamp is the wall clock).
        guard let lastSpace = m.dropLast().lastIndex(of: 32), let t = Int64(String(decoding: m[(lastSpace + 1)..<(m.count - 1)], as: UTF8.self)) else { continue }
        // One sleep until it is due (not a polling loop: its wake-ups would compete for the cores).
        let wait = t - ServiceClock.wallNow()
        if wait > 0 {
            var due = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
            nanosleep(&due, nil)
        }
        pub.publish(topic, m, qos: 0)
    }
    waitUntil(5) { s.stats().linesIn >= lines }
    machine.stop()
    usleep(200_000)
    samples.withLock { feedStop = true }
    feedDone.wait()
    let sorted = samples.withLock { latencies.sorted() }
    let viaFeed = samples.withLock { feedLatencies.sorted() }
    func quantile(_ v: [Double], _ q: Double) -> Double { v.isEmpty ? .nan : v[min(v.count - 1, Int(Double(v.count) * q))] }
    let p = { (q: Double) in quantile(sorted, q) }
    print(String(format: "publish → position at a subscriber   %d lines at %.0f lines/s: p50 %.2f ms, p99 %.2f ms (target p99 ≤ 10 ms: %@), %d positions",
                 lines, Double(lines) / latSeconds, p(0.5), p(0.99), p(0.99) <= 10 ? "met" : "MISSED", sorted.count))
    print(String(format: "  the same positions on the TCP feed (ingest half only): p50 %.2f ms, p99 %.2f ms, %d positions; MQTT p99 ÷ feed p99 %.2f",
                 quantile(viaFeed, 0.5), quantile(viaFeed, 0.99), viaFeed.count, p(0.99) / quantile(viaFeed, 0.99)))
    print("  " + machine.summary())
    s.shutdown()
}

// 5. Restart during QoS 1 ingest: stop the service half-way, start it again with the same client id.
if phases.contains("restart") {
    let prefix = "bench-\(UUID().uuidString.prefix(6))"
    let id = "\(prefix)-restart"
    let a = try service(prefix: prefix, clientID: id, output: false)
    let pub = loadClient("bench-restart-pub", broker)
    let topic = "\(prefix)/\(site.id)/ingest"
    let n = min(messages.count, quick ? 2000 : 6000)
    let sent = lineCount(Array(messages.prefix(n)))
    for (i, m) in messages.prefix(n).enumerated() {
        pub.publish(topic, m)
        if i == n / 2 { Thread.detachNewThread { a.shutdown() } }
        if i % 100 == 0 { usleep(2000) }   // about 50 messages/ms at most: the stop falls mid-stream
    }
    waitUntil(60) { pub.counts.acked >= n }
    a.waitUntilShutdown()
    let before = a.stats().linesIn
    let b = try service(prefix: prefix, clientID: id, output: false)
    waitUntil(60) { before + b.stats().linesIn >= sent }
    usleep(300_000)
    let after = b.stats().linesIn
    let lost = sent - before - after
    print("restart during QoS 1 ingest          \(sent) lines sent, \(before) before the stop, \(after) after: "
          + "\(max(0, lost)) lost (target 0: \(lost <= 0 ? "met" : "MISSED"))\(lost < 0 ? ", \(-lost) delivered twice (QoS 1 is at least once)" : "")")
    b.shutdown()
}
