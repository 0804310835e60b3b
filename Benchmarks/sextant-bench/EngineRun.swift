import Numerics
import Pipeline
import Positioning
import Wire

/// One replay of an ingest stream through Sextant's `Pipeline`, as `sextant replay` does it: bytes in
/// 1 MiB chunks, output lines out, the position lines parsed back into estimates for `Evaluation`.
struct EngineRun {
    var estimates: [EstimateSample] = []
    /// The RTS-smoothed estimates, when the run recorded for smoothing (see `Smoothing.swift`).
    var smoothed: [EstimateSample]?
    var linesRead = 0
    /// Position lines whose side of the anchors' plane was undecided (with `mx`, `my`, `mz`).
    var undecided = 0
    var rejected = 0
    var seconds = 0.0

    static let chunkSize = 1 << 20

    /// Replays `input` (ingest lines) on `site`.
    /// - Parameters:
    ///   - smooth: also record the run for RTS smoothing and collect the smoothed estimates.
    static func replay(site: Site, input: [UInt8], config: EngineConfig = EngineConfig(), smooth: Bool = false) -> EngineRun {
        var config = config
        if smooth { Smoothing.enableRecording(&config) }
        var pipeline = Pipeline(sites: [site], config: config, timestamps: .requireTimestamp)
        var run = EngineRun()
        var output: [UInt8] = []
        var parser = PositionLineParser()
        run.seconds = timed {
            input.withUnsafeBytes { all in
                var offset = 0
                while offset < all.count {
                    let end = min(all.count, offset + chunkSize)
                    pipeline.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end]), output: &output)
                    parser.parse(output, into: &run.estimates)
                    run.undecided += PositionLineParser.undecidedCount(output)
                    output.removeAll(keepingCapacity: true)
                    offset = end
                }
            }
            pipeline.finish(output: &output)
            parser.parse(output, into: &run.estimates)
            run.undecided += PositionLineParser.undecidedCount(output)
            parser.finish(into: &run.estimates)
        }
        run.linesRead = pipeline.linesRead
        run.rejected = pipeline.rejections.total
        if smooth { run.smoothed = Smoothing.smoothedEstimates(pipeline, site: site) }
        return run
    }

    /// Evaluates the run (or its smoothed estimates) against truth; 2 s warm-up per tag.
    func evaluate(truth: [TruthSample], site: Site, smoothed: Bool = false) -> SiteMetrics? {
        let e = smoothed ? (self.smoothed ?? []) : estimates
        return Evaluation(truth: truth, estimates: e, dimensions: [site.id: site.dimensions]).site(site.id)
    }
}

/// Turns `position` output lines back into estimates (other lines are skipped).
struct PositionLineParser {
    private var splitter = LineSplitter()

    mutating func parse(_ bytes: [UInt8], into out: inout [EstimateSample]) {
        splitter.feed(bytes) { Self.handle($0, &out) }
    }

    mutating func finish(into out: inout [EstimateSample]) { splitter.finish { Self.handle($0, &out) } }

    /// The number of `,mz=` fields in `bytes` (position lines with an undecided side).
    static func undecidedCount(_ bytes: [UInt8]) -> Int {
        let key = Array(",mz=".utf8)
        guard bytes.count >= key.count else { return 0 }
        var n = 0
        for i in 0...(bytes.count - key.count) where bytes[i] == key[0] && Array(bytes[i..<i + key.count]) == key { n += 1 }
        return n
    }

    private static func handle(_ piece: SplitLine, _ out: inout [EstimateSample]) {
        guard case .line(_, let bytes) = piece,
              let line = try? ParsedLine.parse(bytes), line.measurement == "position",
              let site = line.tag("site"), let tag = line.tag("tag"), let t = line.timestamp,
              let x = line.field("x")?.doubleValue, let y = line.field("y")?.doubleValue,
              let z = line.field("z")?.doubleValue else { return }
        let f = { (k: String) in line.field(k)?.doubleValue }
        var cov: PositionCovariance?
        if let xx = f("cxx"), let xy = f("cxy"), let yy = f("cyy") {
            cov = PositionCovariance(xx: xx, xy: xy, yy: yy, xz: f("cxz") ?? 0, yz: f("cyz") ?? 0, zz: f("czz") ?? 0)
        }
        out.append(EstimateSample(site: site, tag: tag, time: t, position: Vec3(x, y, z), covariance: cov))
    }
}

/// Ingest bytes and truth of a simulated run (the stream encoded as `sextant simulate` writes it).
struct SimulatedRun {
    var input: [UInt8] = []
    var events: [Event] = []
    var truth: [TruthSample] = []
    var rangingLines = 0

    /// Simulates `site` with `config`; keeps the decoded events when `keepEvents` (for the PCRB).
    init(site: Site, config: SimulationConfig, keepEvents: Bool = false) {
        var input: [UInt8] = [], events: [Event] = [], truth: [TruthSample] = [], ranging = 0
        Simulator(site: site, config: config).generate(event: { e in
            if case .ranging = e { ranging += 1 }
            IngestEncoder.append(e, to: &input)
            if keepEvents { events.append(e) }
        }, truth: { truth.append($0) })
        self.input = input; self.events = events; self.truth = truth; rangingLines = ranging
    }
}
