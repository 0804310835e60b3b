import Positioning
import Wire
import Pipeline

/// The positioning engine inside the service and where its outputs go: the pipeline (engine and
/// counters), the feed hub, and the history sink (positions handed over once a turn). It also keeps
/// the engine's clock as the gateways set it, for the idle sweep and the anchors' silence watch.
///
/// Touched only on the loop thread.
final class ServiceEngine {
    /// Without the runtime's exclusivity check (one `swift_beginAccess` per ingest line, about 90
    /// instructions): the pipeline is touched on the loop thread only, and nothing reached from inside
    /// a pipeline call (the admission's sink, `route`, the feed hub, the history) touches it again.
    @exclusivity(unchecked) var pipeline: Pipeline
    /// Subscriptions, queues, snapshots and last positions of every feed client.
    let hub: FeedHub
    let history: (any HistorySink)?
    let config: ServiceConfig
    let logger: Logger
    /// Positions of this loop turn, handed to the history at the end of the turn (one lock a turn).
    private var pendingHistory: [PositionEstimate] = []
    /// The newest event time applied, and the monotonic time it was applied (for the idle sweep).
    private(set) var lastEventTime: Nanoseconds?
    private var lastEventMonotonic: Int64 = 0
    /// Anchors warned about as silent (`watchAnchors`), until they are heard again.
    var silentAnchors: Set<AnchorKey> = []
    /// The history sink's counters when last logged.
    var historyHealth = HistoryHealth()
    /// Cluster mode: the sites this instance owns now, whose lines it positions (nil: not in a
    /// cluster, every site). Changed by `ClusterCoordinator` on the loop thread.
    var ownedSites: Set<String>?

    init(config: ServiceConfig, sites: [Site], lastPositions: [PositionEstimate], history: (any HistorySink)?,
         logger: Logger) {
        self.config = config
        self.logger = logger
        self.history = history
        pipeline = Pipeline(sites: sites, config: config.engine, timestamps: .requireTimestamp,
                            maxLineLength: config.maxLineLength)
        hub = FeedHub(limit: config.feedQueueLines, policy: config.overflow, rememberedTags: config.maxRememberedTags,
                      flushHold: Int64((config.feedFlushHold * 1e9).rounded()))
        for p in lastPositions { hub.lastPositions.record(p) }
    }

    /// Sends an engine output to the history (positions, zone events) and to the feed hub.
    func route(_ output: Output) {
        switch output {
        case .position(let p):
            if history != nil { pendingHistory.append(p) }
        case .zone(let s, let t, let z, let event, let time):
            history?.appendZoneEvent(site: s, tag: t, zone: z, event: event, time: time)
        case .proximity, .removed:
            break
        }
        hub.publish(output)
    }

    /// An event stamped `time` was applied.
    func noteEvent(at time: Nanoseconds) {
        if lastEventTime.map({ time > $0 }) ?? true { lastEventTime = time }
    }

    /// Events were applied at monotonic time `now` (once per chunk).
    func noteActivity(at now: Int64) {
        lastEventMonotonic = now
    }

    /// The engine's time now: its newest event's time plus the time since that event arrived (nil
    /// before any event). Timestamps come from the gateways, so this is their clock, not the server's.
    var engineNow: Nanoseconds? {
        lastEventTime.map { $0.saturatingAdd(ServiceClock.monotonicNow() - lastEventMonotonic) }
    }

    /// When the stream has been quiet for a second, advances the engine by the time that passed since
    /// its newest event, so silent tags are removed even when no line arrives.
    func idleSweep(now: Int64) {
        guard let t = lastEventTime, now - lastEventMonotonic >= 1_000_000_000 else { return }
        pipeline.advance(to: t.saturatingAdd(now - lastEventMonotonic)) { route($0) }
    }

    /// Once a second: forgets the last positions more than the tag timeout older than the engine's clock
    /// (tags reloaded from the store and not heard again; removed tags are forgotten at once).
    func forgetOldPositions() {
        guard let now = engineNow else { return }
        let (cutoff, overflow) = now.subtractingReportingOverflow(Int64(config.tagTimeout * 1e9))
        if !overflow { hub.lastPositions.prune(before: cutoff) }
    }

    /// Hands the turn's positions to the history (end of a loop turn).
    func handOverHistory() {
        guard !pendingHistory.isEmpty else { return }
        history?.append(contentsOf: pendingHistory)
        pendingHistory.removeAll(keepingCapacity: true)
    }

    /// Once a second: logs what changed in the history sink's health.
    func logHistoryHealth() {
        guard let history else { return }
        historyHealth.log(history.sinkStats, logger)
    }

    /// At shutdown: the turn's positions, a last commit, the sink closed, and what was lost logged.
    func closeHistory() {
        guard let history else { return }
        history.append(contentsOf: pendingHistory)
        pendingHistory.removeAll()
        let rows = history.flush()
        history.close()
        logger.info("history committed", ["rows": rows])
        historyHealth.logAtShutdown(history.sinkStats, logger)
    }

    /// Replaces the maps of the given sites (adds new ones) and logs what changed. A changed site's
    /// tags are placed again from their next lines; unchanged and other sites keep their state.
    func reload(sites files: [SiteFile]) {
        var replaced: [String] = [], added: [String] = [], unchanged: [String] = []
        for file in files {
            switch pipeline.replace(site: file.site) {
            case .added: added.append(file.site.id)
            case .replaced: replaced.append(file.site.id)
            case .unchanged: unchanged.append(file.site.id)
            }
        }
        let changed = Set(replaced + added)
        silentAnchors = silentAnchors.filter { !changed.contains($0.site) }
        logger.info("sites reloaded", ["replaced": replaced.joined(separator: ","), "added": added.joined(separator: ","),
                                       "unchanged": unchanged.joined(separator: ",")])
    }
}
