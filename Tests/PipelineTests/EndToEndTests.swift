import Testing
import Foundation
import Numerics
import Positioning
import Wire
import Pipeline

/// Parses the position lines of an output buffer into estimates.
func estimates(in output: [UInt8]) -> [EstimateSample] {
    var out: [EstimateSample] = []
    var splitter = LineSplitter()
    splitter.feed(output) { piece in
        guard case .line(_, let bytes) = piece, let line = try? ParsedLine.parse(bytes),
              line.measurement == "position", let t = line.timestamp,
              let x = line.field("x")?.doubleValue, let y = line.field("y")?.doubleValue,
              let z = line.field("z")?.doubleValue else { return }
        let c = { (k: String) in line.field(k)?.doubleValue ?? 0 }
        out.append(EstimateSample(site: line.tag("site")!, tag: line.tag("tag")!, time: t, position: Vec3(x, y, z),
                                  covariance: PositionCovariance(xx: c("cxx"), xy: c("cxy"), yy: c("cyy"))))
    }
    return out
}

/// Feeds `bytes` to the pipeline in chunks of random sizes (seeded).
func feedInChunks(_ pipeline: inout Pipeline, _ bytes: [UInt8], seed: UInt64) -> [UInt8] {
    var rng = SeededRandom(seed: seed)
    var output: [UInt8] = []
    var i = 0
    while i < bytes.count {
        let n = min(bytes.count - i, 1 + Int(rng.next() % 5000))
        bytes[i..<(i + n)].withUnsafeBytes { pipeline.feed($0, output: &output) }
        i += n
    }
    pipeline.finish(output: &output)
    return output
}

@Suite struct EndToEndTests {
    /// simulate → encode as text → replay in random chunks → evaluate.
    @Test func simulateReplayEvaluateOnTheDemoWarehouse() throws {
        let site = Site.demoWarehouse
        var config = SimulationConfig(tags: 4, duration: 40, seed: 11)
        config.nlosProbability = 0.1
        config.outlierProbability = 0.005
        let (events, truth) = Simulator(site: site, config: config).run()
        var text: [UInt8] = []
        for e in events { #expect(IngestEncoder.append(e, to: &text)) }

        var pipeline = Pipeline(sites: [site])
        let output = feedInChunks(&pipeline, text, seed: 5)
        #expect(pipeline.rejections.total == 0)
        #expect(pipeline.eventsApplied == events.count)
        let metrics = try #require(Evaluation(truth: truth, estimates: estimates(in: output),
                                              dimensions: [site.id: 2]).site(site.id))
        // UWB (0.1 m) and Channel Sounding (0.4 m) anchors, 10 % NLOS pairs: a working engine stays
        // within a few decimetres; a broken filter (no updates, wrong frames, lost tags) is metres off
        // or unavailable.
        #expect(metrics.rmse < 0.35, "RMSE \(metrics.rmse)")
        #expect(metrics.p95 < 0.8, "p95 \(metrics.p95)")
        #expect(metrics.availability > 0.95, "availability \(metrics.availability)")
    }

    @Test func badLinesAreCountedAndTheStreamGoesOn() {
        let site = Site.demoWarehouse
        let lines = """
            # a comment
            ranging,site=demo-warehouse,anchor=U5,tag=T1 distance=3.0 1000000000
            ranging,site=nowhere,anchor=U5,tag=T1 distance=3.0 1000000001
            ranging,site=demo-warehouse,anchor=ZZ,tag=T1 distance=3.0 1000000002
            ranging,site=demo-warehouse,anchor=U5,tag=T1 distance=-1.0 1000000003
            ranging,site=demo-warehouse,anchor=U5,tag=T1 distance=3.0
            ranging,site=demo-warehouse,anchor=C1,tag=T1,tech=uwb distance=3.0 1000000004
            this is not line protocol
            ranging,site=demo-warehouse,anchor=U6,tag=T1 distance=4.0 1000000005

            """
        var pipeline = Pipeline(sites: [site])
        let output = feedInChunks(&pipeline, Array(lines.utf8), seed: 1)
        #expect(pipeline.rejections["unknown_site"] == 1)
        #expect(pipeline.rejections["unknown_anchor"] == 1)
        #expect(pipeline.rejections["negative_distance"] == 1)
        #expect(pipeline.rejections["missing_timestamp"] == 1)
        #expect(pipeline.rejections["unsupported_technology"] == 1)
        #expect(pipeline.rejections["malformed"] == 1)
        #expect(pipeline.eventsApplied == 2, "the good lines before and after the bad ones")
        #expect(pipeline.rejectionMessages.first == "line 3: unknown site 'nowhere'")
        // One anchor without direction: "distance only".
        #expect(String(decoding: output, as: UTF8.self).hasPrefix("proximity,site=demo-warehouse,tag=T1,anchor=U5 distance="))
    }

    /// The bar on real data: beat the textbook EKF's 0.159 m on LIAS `fast`.
    @Test func liasFastBeatsTheTextbookEKF() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let dir = root.appendingPathComponent("shared/datasets/lias-planar")
        guard FileManager.default.fileExists(atPath: dir.appendingPathComponent("fast.lp.gz").path) else {
            print("skipped: \(dir.path) is absent")
            return
        }
        func gunzip(_ name: String) throws -> [UInt8] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/gzip")
            p.arguments = ["-dc", dir.appendingPathComponent(name).path]
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return [UInt8](data)
        }
        let site = try Site(json: [UInt8](try Data(contentsOf: dir.appendingPathComponent("site.json"))), source: "site.json")
        var pipeline = Pipeline(sites: [site])
        var output: [UInt8] = []
        try gunzip("fast.lp.gz").withUnsafeBytes { pipeline.feed($0, output: &output) }
        pipeline.finish(output: &output)
        let truth = try TruthCSV.parse(bytes: try gunzip("fast-truth.csv.gz"))
        let m = try #require(Evaluation(truth: truth, estimates: estimates(in: output), dimensions: [site.id: 2]).site(site.id))
        #expect(m.rmse < 0.159, "LIAS fast RMSE \(m.rmse)")
    }
}
