import Foundation
import Positioning
import Server
import Wire

/// `sextant demo`: the live service on the embedded demo warehouse, fed by a simulated gateway.
enum DemoCommand {
    static let about = """
        USAGE: sextant demo [options]

        Starts the live service in this process on the embedded demo warehouse (40 × 25 m; UWB anchors,
        some with direction, and Bluetooth Channel Sounding anchors), with SQLite history in a temporary
        data directory and free loopback ports. A simulated gateway streams the tags' measurements into
        the ingest port over TCP at real-time pace, and a live view (refreshed in place on a terminal)
        shows each tag's position, σ, motion and age, the ports a dashboard can connect to, and the
        counters. At the end it prints the accuracy against the simulated truth.
        """

    static let tags = Option.integer("tags", "N", default: 12, in: 1...10_000, help: "tags to simulate")
    static let duration = Option.number("duration", "S", in: 1...86_400, help: "stop after S seconds",
                                        defaultText: "until Ctrl-C")
    static let seed = Option.integer("seed", "N", default: 1, in: 0...Int.max, help: "random seed")
    static let nlos = Option.number("nlos", "P", default: 0.1, in: 0...1, help: "NLOS probability per anchor-tag pair")
    static let outliers = Option.number("outliers", "P", default: 0.005, in: 0...1, help: "gross-outlier probability per range")
    static let spec = CommandSpec("demo", about: about, options: [tags.spec, duration.spec, seed.spec, nlos.spec, outliers.spec])
    static var help: String { spec.help }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        let site = Site.demoWarehouse
        let duration = a[Self.duration]
        var sim = SimulationConfig(tags: a[tags], duration: (duration ?? 86_400) + 1)
        sim.seed = UInt64(a[seed])
        sim.nlosProbability = a[nlos]
        sim.outlierProbability = a[outliers]
        sim.startTime = ServiceClock.wallNow()
        let tty = isatty(STDOUT_FILENO) == 1

        var config = ServiceConfig()
        config.ingestPort = 0
        config.feedPort = 0
        config.dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sextant-demo-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: config.dataDirectory) }
        // On a terminal the live view owns the screen: only warnings are logged.
        let logger = Logger(level: tty ? .warning : .info)
        let demoFile = SiteFile(site: site, json: Array(Site.demoWarehouseJSON.utf8), path: "embedded demo-warehouse.json")
        let host = try ServiceHost(config: config, imports: [demoFile], logger: logger)
        let service = host.service
        try service.start()

        let truth = Locked<[TruthSample]>([])
        let gateway = SimulatedGateway(site: site, config: sim, port: service.ingestPort) { s in
            truth.withLock { $0.append(s) }
        }
        let view = FeedWatcher()
        try view.start(port: service.feedPort)
        try gateway.start()
        let stop = Locked(false)
        let signals = ShutdownSignals(ShutdownSignals.termination) { _ in stop.withLock { $0 = true } }

        let started = Date()
        var lastPrint = Date.distantPast
        if !tty {
            print("Sextant live demo: \(site.name), \(sim.tags) tags; ingest 127.0.0.1:\(service.ingestPort), "
                  + "feed 127.0.0.1:\(service.feedPort); " + (duration.map { "\(Int($0)) s" } ?? "until Ctrl-C"))
        }
        while !stop.withLock({ $0 }) {
            let elapsed = Date().timeIntervalSince(started)
            if let duration, elapsed >= duration { break }
            if let e = gateway.error { printError("demo: the gateway stopped: \(e)"); break }
            if tty {
                print("\u{1B}[H\u{1B}[J" + screen(site: site, service: service, view: view, elapsed: elapsed, duration: duration),
                      terminator: "")
                fflush(nil)
            } else if Date().timeIntervalSince(lastPrint) >= 5 {
                lastPrint = Date()
                print(summaryLine(service.stats(), tags: view.latest.count, elapsed: elapsed))
                fflush(nil)
            }
            usleep(tty ? 250_000 : 100_000)
        }
        gateway.stop()
        usleep(300_000)   // let the last positions reach the feed
        let stats = service.stats()
        service.shutdown()
        view.stop()
        withExtendedLifetime(signals) {}

        if tty { print("\u{1B}[H\u{1B}[J", terminator: "") }
        print(screen(site: site, service: nil, view: view, elapsed: Date().timeIntervalSince(started), duration: duration))
        print(summaryLine(stats, tags: view.latest.count, elapsed: Date().timeIntervalSince(started)))
        let evaluation = Evaluation(truth: truth.withLock { $0 }, estimates: view.samples,
                                    dimensions: [site.id: site.dimensions])
        print("\nAccuracy against the simulated truth (after each tag's first 2 s):")
        print(evaluation.table(), terminator: "")
        print("""

            Next: run the service yourself and connect a dashboard (the README's tour) —
              sextant serve --site Sites/demo-warehouse.json          # ingest :7400, feed :7401
              nc 127.0.0.1 7401                                       # the feed (line protocol)
              sextant simulate --site Sites/demo-warehouse.json --tags 5 --duration 60 --truth truth.csv --output in.lp
              nc -q 1 127.0.0.1 7400 < in.lp                          # a gateway
              sextant status                                          # the counters
              sextant status --anchors                                # each anchor's health
            """)
    }

    /// The live view: ports, counters, and a table of tags.
    static func screen(site: Site, service: Service?, view: FeedWatcher, elapsed: Double, duration: Double?) -> String {
        var s = ""
        if let service {
            s += "Sextant live demo — \(site.name) — \(Int(elapsed)) s" + (duration.map { " of \(Int($0)) s" } ?? " (Ctrl-C to stop)") + "\n"
            s += "ingest 127.0.0.1:\(service.ingestPort)   feed 127.0.0.1:\(service.feedPort)  (try: nc 127.0.0.1 \(service.feedPort))\n"
            s += summaryLine(service.stats(), tags: view.latest.count, elapsed: elapsed) + "\n\n"
        }
        s += "tag       x (m)    y (m)   σ (m)  motion      anchors  age (s)  zone\n"
        let now = ServiceClock.wallNow()
        for (tag, p) in view.latest.sorted(by: { $0.key < $1.key }) {
            let zone = site.zones.first { $0.contains(x: p.x, y: p.y) }?.id ?? "-"
            s += pad(tag, 8) + num(p.x, 9) + num(p.y, 9) + num(p.sigma, 8, 3) + "  " + pad(p.motion, 11)
                + pad(String(p.anchors), 9, left: true) + num(max(0, Double(now - p.time) * 1e-9), 9, 1) + "  " + zone + "\n"
        }
        return s
    }

    static func summaryLine(_ s: ServiceStats, tags: Int, elapsed: Double) -> String {
        "lines in \(s.linesIn) (\(Int(Double(s.linesIn) / max(elapsed, 1e-3)))/s), rejected \(s.rejectedTotal), "
            + "positions \(s.positionsOut), proximity \(s.proximityOut), removed \(s.removedOut), tags \(tags), "
            + "feed clients \(s.feedClients), dropped feed lines \(s.feedLinesDropped), history rows \(s.historyRowsWritten), "
            + "silent anchors \(s.anchorsSilent)"
    }

    static func pad(_ s: String, _ n: Int, left: Bool = false) -> String {
        s.count >= n ? s + " " : (left ? String(repeating: " ", count: n - s.count) + s : s + String(repeating: " ", count: n - s.count))
    }

    static func num(_ v: Double, _ width: Int, _ decimals: Int = 2) -> String {
        pad(String(format: "%.\(decimals)f", v), width, left: true)
    }
}

/// A value guarded by a lock, shared between the demo's threads.
final class Locked<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ value: T) { self.value = value }
    func withLock<R>(_ body: (inout T) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&value) }
}
