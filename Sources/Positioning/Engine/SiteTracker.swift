internal import Numerics

/// The tracker of one site: a filter per tag, fed with that site's events in time order.
///
/// Pure: time comes only from the events and from `advance(to:)`.
public struct SiteTracker: Sendable {
    /// The site map, the tuning and derived geometry: read-only while tags are updated.
    let context: TrackerContext
    public var site: Site { context.site }
    public var config: EngineConfig { context.config }
    var tracks = TrackTable()
    var lastSweep: Nanoseconds = .min
    /// The learned biases, the recording for smoothing and the anchors' health (`SiteLearners`).
    var learners: SiteLearners
    /// Range biases learned online, one per anchor and technology (metres).
    public var learnedBias: BiasLearner { learners.bias }

    public init(site: Site, config: EngineConfig = EngineConfig()) {
        context = TrackerContext(site: site, config: config)
        learners = SiteLearners(site: site, config: config)
    }

    /// Every anchor of the site (in its order) with its health and the learned bias applied to it.
    public func anchorReports() -> [AnchorReport] {
        site.anchors.indices.map { a in
            AnchorReport(site: site.id, anchor: site.anchors[a].id, health: learners.anchorHealth[a],
                         learnedBias: learners.bias.bias(anchor: a, technology: context.anchorTechnology[a]))
        }
    }

    /// The Rauch–Tung–Striebel smoothed version of every position emitted so far (time order), when
    /// the tracker was created with `recordForSmoothing`; empty otherwise.
    public func smoothedEstimates() -> [PositionEstimate] { learners.smoother?.smoothedEstimates() ?? [] }

    /// Number of tags currently tracked (placed or not).
    public var tagCount: Int { tracks.count }

    /// The current estimate of a tag, if it has been placed.
    public func estimate(of tag: String) -> PositionEstimate? {
        guard let track = tracks[tag], let f = track.filter else { return nil }
        return context.makeEstimate(tag: tag, track: track, filter: f, learner: learners.bias)
    }

    /// Every placed tag's current estimate.
    public var estimates: [PositionEstimate] {
        tracks.all.compactMap { tag, track in track.filter.map { context.makeEstimate(tag: tag, track: track, filter: $0, learner: learners.bias) } }
    }

    /// Applies one event of this site; outputs go to `emit` in order.
    /// - Throws: `EngineRejection` for unknown anchors or technologies; state is unchanged then.
    public mutating func handle(_ event: Event, emit: (Output) -> Void) throws(EngineRejection) {
        // The clock moves to the event's time first, in each case: one switch over the event (reading
        // `event.time` first copied the 128-byte event once more).
        switch event {
        case .ranging(let r):
            try handle(ranging: r, emit: emit)
        case .motion(_, let tag, let state, let t):
            advance(to: t, emit: emit)
            try handleMotion(tag: tag, state: state, time: t)
        case .removed(_, let anchorID, let tag, let reason, let t):
            advance(to: t, emit: emit)
            guard let a = site.anchorIndex[anchorID] else { throw .unknownAnchor(site: site.id, anchor: anchorID) }
            endPair(tag: tag, anchor: a, reason: reason, time: t, emit: emit)
        case .session(_, let anchorID, let tag, let state, let t):
            advance(to: t, emit: emit)
            guard let a = site.anchorIndex[anchorID] else { throw .unknownAnchor(site: site.id, anchor: anchorID) }
            handleSession(anchor: a, tag: tag, state: state, time: t, emit: emit)
        }
    }

    /// `handle(.ranging(r), emit:)`: the clock moves to the line's time, then the line is applied.
    @inline(__always)
    mutating func handle(ranging r: Ranging, emit: (Output) -> Void) throws(EngineRejection) {
        advance(to: r.time, emit: emit)
        try handleRanging(r, emit: emit)
    }

    /// Moves the tracker's clock: tags silent for longer than `tagTimeout` are removed.
    @inline(__always)
    public mutating func advance(to now: Nanoseconds, emit: (Output) -> Void) {
        // The sweep runs once a second; the test for it is inlined into every event's path.
        guard lastSweep == .min || now.saturatingSubtract(lastSweep) >= Self.sweepPeriod else { return }
        sweep(now: now, emit: emit)
    }

    static let sweepPeriod: Nanoseconds = 1_000_000_000

    /// Removes the tags silent for longer than `tagTimeout` (see `advance(to:emit:)`).
    @inline(never)
    mutating func sweep(now: Nanoseconds, emit: (Output) -> Void) {
        lastSweep = now
        let limit = now.saturatingSubtract(Nanoseconds(saturatingSeconds: config.tagTimeout))
        let expired = tracks.all.filter { $0.1.lastSeen < limit && !$0.1.isSuspended }.map(\.0).sorted()
        for tag in expired {
            // It was last known inside its zones when last heard: the exit carries that time, so a
            // zone's dwell does not count the timeout. The removal itself happens now.
            let track = tracks[tag]!
            context.zoneHysteresis.exitAll(site: site.id, tag: tag, inside: track.zonesInside, time: track.lastSeen, emit: emit)
            tracks[tag] = nil
            emit(.removed(site: site.id, tag: tag, reason: .timeout, time: now))
        }
    }

    // MARK: lifecycle

    /// Refuses a new tag when the site already tracks `maxTagsPerSite` (a bound on memory that a
    /// gateway sending made-up tag names cannot push past).
    func admitNewTag() throws(EngineRejection) {
        if tracks.count >= config.maxTagsPerSite { throw .tooManyTags(site: site.id, limit: config.maxTagsPerSite) }
    }

    mutating func handleMotion(tag: String, state: MotionState, time: Nanoseconds) throws(EngineRejection) {
        // A hint may come before the tag's first range (a gateway reports the accelerometer as soon
        // as it hears the tag): it starts the track, so the hint is there when the ranges arrive.
        if tracks.number(of: tag) == nil { try admitNewTag() }
        var track = tracks[tag] ?? TagTrack(anchorCount: context.anchorPositions.count, time: time, config: context.config)
        let was = track.motion
        track.motion = state
        if was == .stationary, state != .stationary, track.isPlaced {
            track.placedFilter.inflateVelocity(by: config.initialVelocityStd * config.initialVelocityStd)
        }
        tracks[tag] = track
    }

    mutating func endPair(tag: String, anchor: Int, reason: RemovalReason, time: Nanoseconds,
                          emit: (Output) -> Void) {
        guard var track = tracks[tag] else { return }
        track.anchors[anchor].session = .ended
        track.anchors[anchor].lastHeard = .min
        track.recent.removeAnchor(anchor)
        if track.hasLiveSession {
            tracks[tag] = track
        } else {
            context.zoneHysteresis.exitAll(site: site.id, tag: tag, inside: track.zonesInside, time: time, emit: emit)
            tracks[tag] = nil
            emit(.removed(site: site.id, tag: tag, reason: reason, time: time))
        }
    }

    mutating func handleSession(anchor: Int, tag: String?, state: SessionState, time: Nanoseconds,
                                emit: (Output) -> Void) {
        let tags = tag.map { [$0] } ?? tracks.tags.sorted()
        for t in tags {
            guard var track = tracks[t], track.anchors[anchor].session != .idle || tag != nil else { continue }
            switch state {
            case .suspended:
                track.anchors[anchor].session = .suspended
                tracks[t] = track
            case .resumed:
                track.anchors[anchor].session = .active
                track.lastSeen = max(track.lastSeen, time)
                tracks[t] = track
            case .invalidated:
                endPair(tag: t, anchor: anchor, reason: .peerEnded, time: time, emit: emit)
            }
        }
    }
}
