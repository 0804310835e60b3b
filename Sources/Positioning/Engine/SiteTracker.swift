internal import Numerics

/// Why the engine refused an event that decoded correctly.
public enum EngineRejection: Error, Equatable, CustomStringConvertible {
    case unknownSite(String)
    case unknownAnchor(site: String, anchor: String)
    case unsupportedTechnology(anchor: String, technology: Technology)
    /// A new tag would take the site over `EngineConfig.maxTagsPerSite`.
    case tooManyTags(site: String, limit: Int)
    /// A ranging line older than its tag's filter by more than `EngineConfig.maxLateness` (seconds).
    /// (No ids: the line names them, and a larger error costs every line that can throw it.)
    case late(seconds: Double, limit: Double)

    /// Every key, so counters can be created up front.
    public static let allKeys = ["unknown_site", "unknown_anchor", "unsupported_technology", "too_many_tags", "late"]

    /// A stable snake_case name for counters.
    public var key: String {
        switch self {
        case .unknownSite: "unknown_site"
        case .unknownAnchor: "unknown_anchor"
        case .unsupportedTechnology: "unsupported_technology"
        case .tooManyTags: "too_many_tags"
        case .late: "late"
        }
    }

    public var description: String {
        switch self {
        case .unknownSite(let s): "unknown site '\(s)'"
        case .unknownAnchor(let s, let a): "unknown anchor '\(a)' in site '\(s)'"
        case .unsupportedTechnology(let a, let t): "anchor '\(a)' does not range with '\(t.rawValue)'"
        case .tooManyTags(let s, let limit): "site '\(s)' already tracks \(limit) tags, its limit; new tags are refused"
        case .late(let seconds, let limit):
            "measured \((seconds * 1000).rounded() / 1000) s before the latest line of its tag, more than the "
                + "\(limit) s a line may arrive late; not used"
        }
    }
}

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
    /// Range biases learned online, one per anchor and technology (metres).
    public internal(set) var learnedBias: BiasLearner
    /// The recording for offline smoothing, when enabled (`recordForSmoothing`).
    var smoother: TrajectorySmoother?
    /// Per anchor (site order): its lines and how its ranges fared (`anchorReports`).
    var anchorHealth: [AnchorHealth]

    public init(site: Site, config: EngineConfig = EngineConfig()) {
        context = TrackerContext(site: site, config: config)
        learnedBias = BiasLearner(anchorCount: site.anchors.count, config: config,
                                  angleSlots: site.anchors.contains { $0.technologies.contains(.aoa) })
        smoother = config.recordForSmoothing ? TrajectorySmoother(dimensions: site.dimensions) : nil
        anchorHealth = Array(repeating: AnchorHealth(), count: site.anchors.count)
    }

    /// Every anchor of the site (in its order) with its health and the learned bias applied to it.
    public func anchorReports() -> [AnchorReport] {
        site.anchors.indices.map { a in
            AnchorReport(site: site.id, anchor: site.anchors[a].id, health: anchorHealth[a],
                         learnedBias: learnedBias.bias(anchor: a, technology: context.anchorTechnology[a]))
        }
    }

    /// The Rauch–Tung–Striebel smoothed version of every position emitted so far (time order), when
    /// the tracker was created with `recordForSmoothing`; empty otherwise.
    public func smoothedEstimates() -> [PositionEstimate] { smoother?.smoothedEstimates() ?? [] }

    /// Number of tags currently tracked (placed or not).
    public var tagCount: Int { tracks.count }

    /// The current estimate of a tag, if it has been placed.
    public func estimate(of tag: String) -> PositionEstimate? {
        guard let track = tracks[tag], let f = track.filter else { return nil }
        return context.makeEstimate(tag: tag, track: track, filter: f, learner: learnedBias)
    }

    /// Every placed tag's current estimate.
    public var estimates: [PositionEstimate] {
        tracks.all.compactMap { tag, track in track.filter.map { context.makeEstimate(tag: tag, track: track, filter: $0, learner: learnedBias) } }
    }

    /// Applies one event of this site; outputs go to `emit` in order.
    /// - Throws: `EngineRejection` for unknown anchors or technologies; state is unchanged then.
    public mutating func handle(_ event: Event, emit: (Output) -> Void) throws(EngineRejection) {
        // The clock moves to the event's time first, in each case: one switch over the event (reading
        // `event.time` first copied the 128-byte event once more).
        switch event {
        case .ranging(let r):
            advance(to: r.time, emit: emit)
            try handleRanging(r, emit: emit)
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
            context.zoneHysteresis.exitAll(site: site.id, tag: tag, inside: tracks[tag]!.zonesInside, time: now, emit: emit)
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
        if was == .stationary, state != .stationary, track.filter != nil {
            track.filter!.inflateVelocity(by: config.initialVelocityStd * config.initialVelocityStd)
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

/// What every tag's update reads and never changes: the site, the tuning, the anchors' rotations.
///
/// A class, for speed only: every field is a `let`, so sharing it between copies of a `SiteTracker`
/// keeps value semantics, and a method call on it passes a reference where a struct this size
/// (256 bytes) was copied through `memcpy` for each call.
final class TrackerContext: Sendable {
    let site: Site
    let config: EngineConfig
    /// Rotation site → anchor frame of each anchor (identity where it has no orientation).
    let rotations: [Mat3]
    /// Per anchor, for the hot paths (no copies of `Anchor`): position, default technology and the
    /// range σ used to weigh its residuals in bias learning.
    let anchorPositions: [Vec3]
    let anchorTechnology: [Technology]
    let anchorRangeStd: [Double]
    let anchorTechnologies: [[Technology]]
    /// Per anchor, its technologies as bits (`bit(_:)`).
    let anchorTechnologyMasks: [UInt8]
    /// The anchors numbered by id like `site.anchors` (the first of duplicate ids wins, as in
    /// `site.anchorIndex`), for the per-line lookup.
    let anchorNumbers: NameIndex
    /// Zone membership rules of the site.
    let zoneHysteresis: ZoneHysteresis
    /// The NLOS hypotheses' tuning, from `config`.
    let nlosParameters: PairNLOS.Parameters
    /// `config`'s anchor window, output interval and bias round interval in nanoseconds, converted
    /// once rather than on every line.
    let anchorWindow: Nanoseconds, outputInterval: Nanoseconds, biasRoundInterval: Nanoseconds
    /// `config.maxLateness` in nanoseconds.
    let maxLateness: Nanoseconds
    let biasRetryInterval: Nanoseconds
    /// `config.biasMaxBlockedProbability`, in the NLOS state's precision.
    let biasMaxBlockedProbability: Float
    /// The corners of the site's bounds grown by `boundsMargin` (at least 10 % of the size)
    /// horizontally and 0.5 m vertically (see `isInside`).
    let insideLow: Vec3, insideHigh: Vec3
    /// The site's `tagHeightRange` on a 3-D site (see `holdHeight`), else nil.
    let heightRange: ClosedRange<Double>?
    /// The plane of the anchors of a 3-D site whose anchors lie in one (see `AnchorPlane`), else nil.
    let anchorPlane: AnchorPlane?
    /// False on a 3-D site with four anchors or fewer: four ranges fix three coordinates with one to
    /// spare, and one spare range can show that some range is wrong but not which. There, a range
    /// longer than predicted is not taken for a blocked path (`PairNLOS`, the running excess): doing so
    /// lets the filter drop any one anchor and sit on the point the other three fit, metres off.
    let nlosIdentifiable: Bool
    /// The anchors a placement from ranges alone needs beyond what multilateration needs, or nil: on a
    /// 3-D site with more than four anchors not in one plane, five (two spheres more than unknowns),
    /// since four of many anchors at different heights can meet in a second point the others would
    /// have ruled out. Four-anchor sites and sites whose anchors lie in one plane place from four.
    let placementAnchors: Int?

    init(site: Site, config: EngineConfig) {
        self.site = site
        self.config = config
        rotations = site.anchors.map { $0.orientation?.rotation.transposed ?? .identity }
        anchorPositions = site.anchors.map(\.position)
        anchorTechnology = site.anchors.map { $0.technologies.first ?? .uwb }
        anchorTechnologies = site.anchors.map(\.technologies)
        anchorTechnologyMasks = site.anchors.map { $0.technologies.reduce(0) { $0 | TrackerContext.bit($1) } }
        anchorNumbers = NameIndex(site.anchors.map(\.id))
        zoneHysteresis = ZoneHysteresis(site: site, config: config)
        nlosParameters = PairNLOS.Parameters(config: config)
        anchorWindow = Nanoseconds(saturatingSeconds: config.anchorWindow)
        outputInterval = Nanoseconds(saturatingSeconds: config.outputInterval)
        maxLateness = Nanoseconds(saturatingSeconds: config.maxLateness)
        biasRoundInterval = Nanoseconds(saturatingSeconds: config.biasRoundInterval)
        biasRetryInterval = Nanoseconds(saturatingSeconds: config.biasRetryInterval)
        biasMaxBlockedProbability = Float(config.biasMaxBlockedProbability)
        let b = site.bounds, m = config.boundsMargin
        let mx = max(m, 0.1 * (b.max.x - b.min.x)), my = max(m, 0.1 * (b.max.y - b.min.y))
        insideLow = Vec3(b.min.x - mx, b.min.y - my, b.min.z - 0.5)
        insideHigh = Vec3(b.max.x + mx, b.max.y + my, b.max.z + 0.5)
        anchorRangeStd = site.anchors.map { $0.rangeStd ?? ($0.technologies.first ?? .uwb).defaultRangeStd }
        heightRange = site.dimensions == 3 ? site.tagHeightRange : nil
        anchorPlane = site.dimensions == 3 ? AnchorPlane(points: site.anchors.map(\.position)) : nil
        nlosIdentifiable = site.dimensions != 3 || site.anchors.count > 4
        placementAnchors = site.dimensions == 3 && site.anchors.count > 4 && anchorPlane == nil ? 5 : nil
    }

    /// True when anchor `a` ranges with `technology` (its technologies contain it), from a bit mask
    /// per anchor rather than a search of its array.
    @inline(__always)
    func anchorSupports(_ a: Int, _ technology: Technology) -> Bool {
        anchorTechnologyMasks[a] & Self.bit(technology) != 0
    }

    @inline(__always)
    static func bit(_ technology: Technology) -> UInt8 {
        switch technology {
        case .uwb: 1
        case .cs: 2
        case .aoa: 4
        }
    }

    /// The index of the anchor with this id in `site.anchors`, or nil when the site has no such anchor.
    @inline(__always)
    func anchorNumber(_ id: String) -> Int? { anchorNumbers.number(of: id) }
}
