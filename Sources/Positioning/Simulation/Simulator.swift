/// Simulates tags walking a site and the gateway events their anchors would report, with ground truth.
///
/// Pure and deterministic: the output depends only on the site and the config (including its seed).
/// Tags follow random-waypoint paths inside the site bounds (at `tagHeight` on 2-D sites, 0.3–4 m on
/// 3-D sites), stop now and then, and report `motion` hints with an accelerometer-like delay. Every
/// anchor-tag pair within the technology's range ranges at its own rate with random phase and jitter;
/// ranges carry the anchor's bias, Gaussian noise, NLOS bursts and gross outliers as configured; oriented
/// UWB anchors add azimuth/elevation when the tag is inside their field of view. Pairs drop out
/// (`removed`, reason `timeout`) and anchors suspend and resume their sessions at low rates.
///
/// For large runs (e.g. 2 000 tags × 16 anchors × 5 Hz × 60 s ≈ 10 M events), stream with
/// `makeStream()` or `generate(event:truth:)` rather than collecting arrays.
public struct Simulator: Sendable {
    /// The simulated site.
    public let site: Site
    /// The run's settings.
    public let config: SimulationConfig
    /// Tag ids, index 0 … tags-1: the config's prefix and a zero-padded index.
    public let tagIDs: [String]

    /// - Parameters:
    ///   - site: the site to simulate (anchors, bounds, dimensions, tag height).
    ///   - config: tags, duration, seed and error model; see `SimulationConfig`.
    public init(site: Site, config: SimulationConfig) {
        self.site = site
        self.config = config
        let count = Swift.max(0, config.tags)
        let width = String(Swift.max(0, count - 1)).count
        tagIDs = (0..<count).map { i in
            let digits = String(i)
            return config.tagPrefix + String(repeating: "0", count: width - digits.count) + digits
        }
    }

    /// A fresh time-ordered stream of events and truth samples; each call starts the run over.
    public func makeStream() -> SimulationStream {
        SimulationStream(site: site, config: config, tagIDs: tagIDs)
    }

    /// Streams the run to two callbacks: gateway events and ground-truth samples (every tag at
    /// `truthRate`, on a common grid starting at `startTime`).
    /// - Parameters:
    ///   - event: called for each gateway event: in non-decreasing time, or, with a
    ///     `gatewayBatch`, in the order a service would receive them (see `GatewayDelivery`).
    ///   - truth: called for each truth sample, interleaved in time with the events.
    public func generate<E: Error>(event: (Event) throws(E) -> Void,
                                   truth: (TruthSample) throws(E) -> Void) throws(E) {
        var stream = makeStream()
        guard config.gatewayBatch > 0 else {
            while let item = stream.next() {
                switch item {
                case .event(let e): try event(e)
                case .truth(let s): try truth(s)
                }
            }
            return
        }
        var delivery = GatewayDelivery(anchors: site.anchors, batch: config.gatewayBatch, seed: config.seed)
        while let item = stream.next() {
            switch item {
            case .event(let e): try delivery.add(e, deliver: event)
            case .truth(let s): try truth(s)
            }
        }
        try delivery.finish(deliver: event)
    }

    /// Streams only the gateway events, in the order of `generate(event:truth:)`.
    /// - Parameter body: called once per event.
    public func generate<E: Error>(into body: (Event) throws(E) -> Void) throws(E) {
        try generate(event: body, truth: { _ throws(E) in })
    }

    /// The whole run collected into arrays (for tests and small runs).
    public func run() -> (events: [Event], truth: [TruthSample]) {
        var events: [Event] = [], truth: [TruthSample] = []
        generate(event: { events.append($0) }, truth: { truth.append($0) })
        return (events, truth)
    }
}
