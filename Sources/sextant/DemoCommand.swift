import Foundation
import Positioning
import Pipeline
import Wire

/// `sextant demo`: the main job on the embedded demo warehouse, offline.
enum DemoCommand {
    static let help = """
        USAGE: sextant demo [options]

        Simulates the embedded demo warehouse (40 × 25 m; UWB anchors, some with direction, and Bluetooth
        Channel Sounding anchors), writes the stream as ingest lines, positions it as 'sextant replay'
        would, and prints the tags' last positions and the accuracy against the simulated truth.

        OPTIONS:
          --tags N          tags to simulate (default 12)
          --duration S      seconds of simulated time (default 60)
          --seed N          random seed (default 1)
          --nlos P          NLOS probability per anchor-tag pair (default 0.1)
          --outliers P      gross-outlier probability per range (default 0.005)
          -h, --help        show this help
        """

    static func run(_ argv: [String]) throws {
        let a = try Arguments(argv, command: "demo", options: ["tags", "duration", "seed", "nlos", "outliers"],
                              switches: [])
        if a.wantsHelp { print(help); return }
        let site = Site.demoWarehouse
        var sim = SimulationConfig(tags: try a.int("tags", default: 12, in: 1...10_000),
                                   duration: try a.double("duration", default: 60, in: 1...3600))
        sim.seed = UInt64(try a.int("seed", default: 1, in: 0...Int.max))
        sim.nlosProbability = try a.double("nlos", default: 0.1, in: 0...1)
        sim.outlierProbability = try a.double("outliers", default: 0.005, in: 0...1)

        let uwb = site.anchors.filter { $0.technologies.contains(.uwb) }.count
        let cs = site.anchors.filter { $0.technologies.contains(.cs) }.count
        let withDirection = site.anchors.filter { $0.orientation != nil }.count
        print("Sextant demo: \(site.name) (\(site.id)), \(Int(site.bounds.max.x - site.bounds.min.x)) × "
              + "\(Int(site.bounds.max.y - site.bounds.min.y)) m, \(site.anchors.count) anchors "
              + "(\(uwb) UWB, \(withDirection) with direction; \(cs) Channel Sounding), zones: "
              + site.zones.map(\.id).joined(separator: ", "))
        print("Simulating \(sim.tags) tags for \(Int(sim.duration)) s (NLOS \(sim.nlosProbability), outliers \(sim.outlierProbability), seed \(sim.seed))…")

        // 1. The gateways' stream, as text lines.
        var stream: [UInt8] = []
        var truth: [TruthSample] = []
        var events = 0
        Simulator(site: site, config: sim).generate(event: { e in
            events += 1
            IngestEncoder.append(e, to: &stream)
        }, truth: { truth.append($0) })

        // 2. Replay it through the engine.
        var pipeline = Pipeline(sites: [site], timestamps: .requireTimestamp)
        var output: [UInt8] = []
        let started = Date()
        stream.withUnsafeBytes { pipeline.feed($0, output: &output) }
        pipeline.finish(output: &output)
        let seconds = Date().timeIntervalSince(started)
        print("Positioned \(events) ingest lines in \(String(format: "%.2f", seconds)) s "
              + "(\(Int(Double(events) / max(seconds, 1e-9))) lines/s): \(pipeline.positionsOut) position lines, "
              + "\(pipeline.proximityOut) proximity, \(pipeline.removedOut) removed, \(pipeline.rejections.total) rejected.\n")

        // 3. What a user sees: the last position of every tag.
        let tracker = pipeline.engine.trackers[site.id]!
        let end = tracker.estimates.map(\.time).max() ?? 0
        print("tag       x (m)    y (m)   σ (m)  motion      anchors  age (s)  zone")
        for e in tracker.estimates.sorted(by: { $0.tag < $1.tag }) {
            let zone = site.zones.first { $0.contains(x: e.position.x, y: e.position.y) }?.id ?? "-"
            print(pad(e.tag, 8) + num(e.position.x, 9) + num(e.position.y, 9) + num(e.sigma, 8, 3) + "  "
                  + pad(e.motion.rawValue, 11) + pad(String(e.anchors), 9, left: true)
                  + num(Double(end - e.time) * 1e-9, 9, 1) + "  " + zone)
        }

        // 4. How good it is, against the simulated truth.
        let (estimates, _, _) = EvaluateCommand.parsePositions(output)
        let evaluation = Evaluation(truth: truth, estimates: estimates, dimensions: [site.id: site.dimensions])
        print("\nAccuracy against the simulated truth (after each tag's first 2 s):")
        print(evaluation.table(), terminator: "")
        print("""

            Next: simulate and replay yourself —
              sextant simulate --site Sites/demo-warehouse.json --tags 5 --duration 60 --truth truth.csv --output in.lp
              sextant replay --site Sites/demo-warehouse.json --input in.lp --output positions.lp
              sextant evaluate --truth truth.csv --positions positions.lp
            """)
    }

    static func pad(_ s: String, _ n: Int, left: Bool = false) -> String {
        s.count >= n ? s + " " : (left ? String(repeating: " ", count: n - s.count) + s : s + String(repeating: " ", count: n - s.count))
    }

    static func num(_ v: Double, _ width: Int, _ decimals: Int = 2) -> String {
        pad(String(format: "%.\(decimals)f", v), width, left: true)
    }
}
