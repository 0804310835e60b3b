import Numerics

/// One item of a simulated run: a gateway event or a ground-truth sample.
public enum SimulationItem: Sendable, Equatable {
    /// What a gateway would send: a ranging, a motion hint, a removal or a session change.
    case event(Event)
    /// Where a tag really was (on the truth grid).
    case truth(TruthSample)

    /// Unix nanoseconds of the item.
    public var time: Nanoseconds {
        switch self {
        case .event(let e): e.time
        case .truth(let s): s.time
        }
    }
}

/// The lazily generated, time-ordered items of a simulation (events and truth merged).
///
/// Every source (each anchor-tag pair, each tag's truth sampler and motion sensor, each anchor's
/// session) sits in one min-heap keyed by its next time; `next()` pops the earliest, so memory stays
/// proportional to the number of pairs, not to the number of events. Ties in time come out in a fixed
/// source order (pairs, then truth, then motion, then anchor sessions).
public struct SimulationStream: IteratorProtocol, Sequence {
    private let siteID: String
    private let anchors: [Anchor]
    private let tagIDs: [String]
    private let config: SimulationConfig
    private let endTime: Nanoseconds
    private let rangingPeriod: Double   // ns
    private let truthPeriod: Double     // ns
    private let dropoutPerTick: Double
    private let maxRangeByPair: [Double]
    private var paths: [TagPath]
    private var pairs: [PairState]
    private var truthTicks: [Int]
    private var pendingHint: [MotionState]
    private var anchorRNG: [SeededRandom]
    private var suspendedUntil: [Nanoseconds]
    private var heap: ScheduleHeap
    // Source index ranges: [0, truthBase) pairs (tag-major), then truth, motion, anchors.
    private let truthBase: Int, motionBase: Int, anchorBase: Int

    init(site: Site, config: SimulationConfig, tagIDs: [String]) {
        siteID = site.id
        anchors = site.anchors
        self.tagIDs = tagIDs
        self.config = config
        let start = config.startTime
        endTime = start + Nanoseconds((config.duration * 1e9).rounded())
        rangingPeriod = 1e9 / config.rangingRate
        truthPeriod = 1e9 / config.truthRate
        dropoutPerTick = config.dropoutRate / 60 / config.rangingRate
        let nA = anchors.count, nT = tagIDs.count
        truthBase = nA * nT; motionBase = truthBase + nT; anchorBase = motionBase + nT
        heap = ScheduleHeap(capacity: anchorBase + nA)
        paths = []; pairs = []
        truthTicks = Array(repeating: 0, count: nT)
        pendingHint = Array(repeating: .unknown, count: nT)
        anchorRNG = []; suspendedUntil = Array(repeating: .min, count: nA)
        let seed = config.seed
        paths.reserveCapacity(nT); pairs.reserveCapacity(nA * nT)
        var ranges: [Double] = []
        ranges.reserveCapacity(nA * nT)
        for k in 0..<nT {
            paths.append(TagPath(site: site, config: config, rng: SeededRandom(seed: seed, stream: 1 << 40 | UInt64(k))))
            for a in 0..<nA {
                let p = k * nA + a
                var pair = PairState(anchor: anchors[a], rng: SeededRandom(seed: seed, stream: 2 << 40 | UInt64(p)))
                ranges.append(config.maxRange(pair.technology))
                let phase = Nanoseconds(pair.rng.nextUniform() * rangingPeriod)
                pairs.append(pair)
                heap.push(.init(time: start + phase, source: Int32(p)))
            }
            heap.push(.init(time: start, source: Int32(truthBase + k)))
            if let hint = paths[k].nextHint() {
                pendingHint[k] = hint.state
                heap.push(.init(time: hint.time, source: Int32(motionBase + k)))
            }
        }
        maxRangeByPair = ranges
        for a in 0..<nA {
            var rng = SeededRandom(seed: seed, stream: 3 << 40 | UInt64(a))
            if config.suspendRate > 0 {
                let wait = rng.nextExponential(mean: 60 / config.suspendRate)
                if wait < config.duration {
                    heap.push(.init(time: start + Nanoseconds(wait * 1e9), source: Int32(anchorBase + a)))
                }
            }
            anchorRNG.append(rng)
        }
    }

    /// The next item in time order, or nil at the end of the run.
    public mutating func next() -> SimulationItem? {
        while let top = heap.top {
            guard top.time < endTime else { heap = ScheduleHeap(capacity: 0); return nil }
            let s = Int(top.source)
            if s < truthBase {
                if let e = stepPair(s, at: top.time) { return .event(e) }
            } else if s < motionBase {
                return .truth(stepTruth(s - truthBase, at: top.time))
            } else if s < anchorBase {
                return .event(stepMotion(s - motionBase, at: top.time))
            } else {
                return .event(stepAnchor(s - anchorBase, at: top.time))
            }
        }
        return nil
    }

    /// The exact true position of tag number `index` at `t` (site frame, metres), for tests;
    /// `t` must not precede the time of the last item returned.
    mutating func truePosition(tag index: Int, at t: Nanoseconds) -> Vec3 { paths[index].position(at: t) }

    private mutating func stepTruth(_ k: Int, at t: Nanoseconds) -> TruthSample {
        truthTicks[k] += 1
        heap.rescheduleTop(at: config.startTime + Nanoseconds((Double(truthTicks[k]) * truthPeriod).rounded()))
        return TruthSample(site: siteID, tag: tagIDs[k], time: t, position: paths[k].position(at: t))
    }

    private mutating func stepMotion(_ k: Int, at t: Nanoseconds) -> Event {
        let state = pendingHint[k]
        if let hint = paths[k].nextHint() {
            pendingHint[k] = hint.state
            heap.rescheduleTop(at: hint.time)
        } else {
            heap.popTop()
        }
        return .motion(site: siteID, tag: tagIDs[k], state: state, time: t)
    }

    private mutating func stepAnchor(_ a: Int, at t: Nanoseconds) -> Event {
        let id = anchors[a].id
        if suspendedUntil[a] > t {
            // Currently suspended: this tick is the resume; schedule the next suspension.
            suspendedUntil[a] = .min
            let wait = anchorRNG[a].nextExponential(mean: 60 / config.suspendRate)
            heap.rescheduleTop(at: t + Nanoseconds(wait * 1e9) + 1)
            return .session(site: siteID, anchor: id, tag: nil, state: .resumed, time: t)
        }
        let r = config.suspendDuration
        let until = t + Nanoseconds(anchorRNG[a].nextUniform(r.lowerBound, r.upperBound) * 1e9) + 1
        suspendedUntil[a] = until
        heap.rescheduleTop(at: until - 1)
        return .session(site: siteID, anchor: id, tag: nil, state: .suspended, time: t)
    }

    private mutating func stepPair(_ p: Int, at t: Nanoseconds) -> Event? {
        let nA = anchors.count
        let k = p / nA, a = p - k * nA
        var pair = pairs[p]     // worked on locally and stored back once: one array access, not dozens
        defer { pairs[p] = pair }
        let jitter = config.rangingJitter * pair.rng.nextUniform(-1, 1)
        var next = t + Swift.max(1, Nanoseconds(rangingPeriod * (1 + jitter)))
        defer { heap.rescheduleTop(at: next) }
        if t < suspendedUntil[a] || t < pair.silentUntil { return nil }
        let position = paths[k].position(at: t)
        let v = position - anchors[a].position
        let d = v.norm
        let maxRange = maxRangeByPair[p]
        if d > maxRange {
            // Out of range: the tag cannot come back within `excess / maxSpeed` seconds, so skip ahead.
            let ticks = ((d - maxRange) / (config.speed.upperBound * rangingPeriod * 1e-9)).rounded(.down)
            if ticks >= 2 { next += Nanoseconds((ticks - 1) * rangingPeriod) }
            return deactivate(&pair, a: a, k: k, at: t)
        }
        if pair.rng.nextBernoulli(dropoutPerTick) {
            let r = config.dropoutDuration
            pair.silentUntil = t + Nanoseconds(pair.rng.nextUniform(r.lowerBound, r.upperBound) * 1e9)
            return deactivate(&pair, a: a, k: k, at: t)
        }
        pair.active = true
        pair.updateEpisode(at: t, config: config)
        let distance = Self.quantize(pair.measure(distance: d, anchorBias: anchors[a].rangeBias, config: config),
                                     config.rangeResolution)
        var direction: Direction? = nil
        if pair.technology != .cs, let orientation = anchors[a].orientation, anchors[a].seesDirection(v) {
            direction = pair.measureDirection(v, orientation: orientation, config: config)
            if case .angles(let az?, let el?) = direction {
                direction = .angles(azimuth: Self.quantize(az, config.angleResolution),
                                    elevation: Self.quantize(el, config.angleResolution))
            }
        }
        // Angle-of-arrival locators measure the direction only, and nothing outside their field of view.
        guard pair.technology == .aoa else {
            return .ranging(Ranging(site: siteID, anchor: anchors[a].id, tag: tagIDs[k], technology: pair.technology,
                                    distance: distance, std: pair.sigma, direction: direction, time: t))
        }
        guard direction != nil else { return nil }
        return .ranging(Ranging(site: siteID, anchor: anchors[a].id, tag: tagIDs[k], technology: .aoa,
                                distance: nil, direction: direction, time: t))
    }

    /// Marks the pair as no longer ranging; the first time, the anchor reports the tag lost (timeout).
    private func deactivate(_ pair: inout PairState, a: Int, k: Int, at t: Nanoseconds) -> Event? {
        guard pair.active else { return nil }
        pair.active = false
        return .removed(site: siteID, anchor: anchors[a].id, tag: tagIDs[k], reason: .timeout, time: t)
    }

    /// Rounds to the reporting resolution of a gateway (0: no rounding).
    static func quantize(_ v: Double, _ resolution: Double) -> Double {
        guard resolution > 0 else { return v }
        let steps = (1 / resolution).rounded()   // e.g. 1000 per metre: v·1000 rounded, / 1000 is the
        return (v * steps).rounded() / steps      // double nearest the decimal, so it prints short
    }
}
