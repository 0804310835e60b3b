import Foundation
import Positioning
import Server
import Wire

/// What one latency run measured: lines sent, seconds, and the sorted latencies (ms) after warm-up.
struct LatencyRun {
    var sent: Int
    var seconds: Double
    var latencies: [Double]
}

/// The latency client: a dashboard subscribed to the feed, and a gateway sending the simulated
/// ranging lines of 900 tags at 50,000 lines/s, each stamped with its send time. A position's latency
/// is its receive time minus its own time (that of the measurement that produced it).
/// - Parameters:
///   - tagPrefix: tag ids for this run (a second run uses new tags, so both start the same way).
func runLatencyClient(site s: Site, ingestPort: UInt16, feedPort: UInt16, quick: Bool,
                      tagPrefix: String = "T") throws -> LatencyRun {
    var sim = SimulationConfig(tags: 900, duration: quick ? 5 : 12)
    sim.tagPrefix = tagPrefix
    sim.startTime = ServiceClock.wallNow()
    sim.dropoutRate = 0
    sim.suspendRate = 0
    var rangings: [Ranging] = []
    Simulator(site: s, config: sim).generate { if case .ranging(let r) = $0 { rangings.append(r) } }
    let feed = try Socket.connect(host: "127.0.0.1", port: feedPort)
    try feed.writeAll(Array("subscribe kinds=position\n".utf8))
    feed.setReceiveTimeout(0.2)
    let latencies = LockedArray()
    let reading = DispatchSemaphore(value: 0)
    let stop = LockedFlag()
    Thread.detachNewThread {
        var splitter = LineSplitter()
        while !stop.value {
            guard let chunk = try? feed.read(), !chunk.isEmpty else { continue }
            let now = ServiceClock.wallNow()
            splitter.feed(chunk) { piece in
                guard case .line(_, let b) = piece, let sp = b.lastIndex(of: 32),
                      let t = Int64(String(decoding: b[(sp + 1)...], as: UTF8.self)) else { return }
                latencies.append(Double(now - t) * 1e-6, at: now)
            }
        }
        reading.signal()
    }
    usleep(300_000)
    let gateway = try Socket.connect(host: "127.0.0.1", port: ingestPort)
    let rate = 50_000.0, tick = 0.001
    let perTick = Int(rate * tick)
    let started = ServiceClock.monotonicNow()
    var buffer: [UInt8] = []
    var sent = 0
    let warmup = rangings.count / 5
    while sent < rangings.count {
        let due = Int(Double(ServiceClock.monotonicNow() - started) * 1e-9 * rate)
        if sent >= due { usleep(UInt32(tick * 1e6 / 2)); continue }
        let now = ServiceClock.wallNow()
        buffer.removeAll(keepingCapacity: true)
        for i in sent..<min(due, sent + perTick * 4, rangings.count) {
            var r = rangings[i]
            r.time = now
            IngestEncoder.append(.ranging(r), to: &buffer)
        }
        sent = min(due, sent + perTick * 4, rangings.count)
        if sent >= warmup && sent - perTick * 4 < warmup { latencies.reset() }   // skip filter start-up
        try gateway.writeAll(buffer)
    }
    let seconds = Double(ServiceClock.monotonicNow() - started) * 1e-9
    usleep(300_000)
    stop.value = true
    reading.wait()
    // A diagnostic: SERVICE_BENCH_TRACE=FILE writes every measured latency with its receive time.
    if let path = ProcessInfo.processInfo.environment["SERVICE_BENCH_TRACE"] {
        let file = path + "." + tagPrefix
        if !FileManager.default.createFile(atPath: file, contents: Data(latencies.trace().utf8)) {
            FileHandle.standardError.write(Data("service-bench: cannot write the trace \(file)\n".utf8))
        }
    }
    return LatencyRun(sent: sent, seconds: seconds, latencies: latencies.sorted())
}
