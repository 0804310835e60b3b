import CEpoll
import Foundation
import Positioning

/// The event loop of the service: one thread polls every transport's descriptors and a wake-up pipe,
/// and dispatches. The work is done by the components it owns:
///
/// - `engine` (`ServiceEngine`): the pipeline and where outputs go (the feed hub, the history);
/// - `admission` (`IngestAdmission`): the one way ingest lines enter the engine;
/// - `gate` (`ConnectionGate`): connection limits and the authentication back-off;
/// - `counters` (`ServiceCounters`): the counters every component updates;
/// - `transports` (`LoopTransport`): the TCP ingest port and the TCP feed, in `Transports/TCP`.
///
/// A turn: wait for readiness and hand each event to the transport that owns its token; run the
/// commands other threads submitted; run the timers (each transport's deadlines, and once a second
/// the engine's idle sweep, the deadlines of ingest sessions, the back-off and health checks); end the
/// turn (history handed over, feed subscribers flushed through their transports).
///
/// Threading invariant: everything here is touched only on the loop thread (the `Thread` that calls
/// `run()`), except `inbox` (locked) and `poller.wake()`. That is why the class
/// may be `@unchecked Sendable`: other threads reach its state only through `submit(_:)`.
final class ServiceLoop: @unchecked Sendable {
    /// The loop thread's name, as `top -H` and `perf` show it (`sextant.history` is the writer's).
    static let threadName = "sextant.loop"
    /// How long shutdown waits for slow feed readers, nanoseconds (0.5 s).
    static let drainTime: Int64 = 500_000_000
    /// Within a long turn, the rest of the end-of-turn work (the history's hand-over, the stats
    /// watchers) runs at most this often, nanoseconds (0.5 ms; see `flushIfDue`).
    static let turnWorkInterval: Int64 = 500_000
    /// Timer slack of the loop thread, nanoseconds: the flush hold's deadlines are microseconds away,
    /// and the default slack (50 µs) would add that much to each.
    static let timerSlack: UInt = 1_000

    /// Where the loop is in its life.
    enum State {
        /// Made; listeners not bound yet.
        case starting
        /// Polling, since the monotonic time given.
        case running(since: Int64)
        /// Shutting down since the monotonic time given: no more accepting, the history committed, and
        /// feed clients given `drainTime` after that to read what is queued.
        case draining(since: Int64)
        /// Everything closed.
        case stopped
    }

    let config: ServiceConfig
    let logger: Logger
    let poller: Poller
    let counters = ServiceCounters()
    let engine: ServiceEngine
    let gate: ConnectionGate
    let admission: IngestAdmission
    private(set) var state = State.starting
    /// The transports and the poller tokens they own; the TCP ones by name, for the counters.
    private var transports = TransportTable()
    private(set) var ingest: TCPIngest?
    private(set) var feed: TCPFeed?
    /// MQTT in (nil: off); added by `Service` before the loop runs.
    var mqtt: MQTTIngest?
    /// Cluster mode's fence (nil: off); added by `Service` before the loop runs.
    var cluster: ClusterTransport?
    /// When the once-a-second work and the last end-of-turn work ran (monotonic ns).
    private var lastSweep: Int64 = 0
    private var lastTurnWork: Int64 = 0
    let startedMonotonic = ServiceClock.monotonicNow()
    /// One read buffer for every connection (the loop reads one connection at a time).
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    /// Threads waiting for a condition on the counters (`Service.waitForStats`).
    var statsWatchers: [StatsWatcher] = []
    private let inbox = LoopInbox()

    init(config: ServiceConfig, sites: [Site], lastPositions: [PositionEstimate], history: (any HistorySink)?,
         logger: Logger) throws(SystemError) {
        self.config = config
        self.logger = logger
        poller = try Poller()
        engine = ServiceEngine(config: config, sites: sites, lastPositions: lastPositions, history: history,
                               logger: logger)
        gate = ConnectionGate(config: config, logger: logger, counters: counters)
        admission = IngestAdmission(config: config, logger: logger, counters: counters, engine: engine, gate: gate)
    }

    deinit { readBuffer.deallocate() }

    /// Binds both listeners and starts their transports. - Returns: the bound ports (ingest, feed).
    func bind() throws(SystemError) -> (UInt16, UInt16) {
        let i = try Socket.listen(host: config.bindAddress, port: config.ingestPort)
        let f = try Socket.listen(host: config.bindAddress, port: config.feedPort)
        let ingestListener = try TCPListener(socket: i, port: .ingest, token: newToken(), poller: poller, logger: logger)
        let feedListener = try TCPListener(socket: f, port: .feed, token: newToken(), poller: poller, logger: logger)
        let ingest = TCPIngest(loop: self, admission: admission, listener: ingestListener)
        let feed = TCPFeed(loop: self, hub: engine.hub, listener: feedListener)
        add(ingest, tokens: [ingestListener.token])
        add(feed, tokens: [feedListener.token])
        self.ingest = ingest
        self.feed = feed
        return (try i.localPort(), try f.localPort())
    }

    /// Adds a transport (before `run()`); poller events of `tokens` (its listeners') go to it.
    func add(_ transport: any LoopTransport, tokens: [UInt64]) { transports.add(transport, tokens: tokens) }
    /// A poller token not used before (for a descriptor, or to name an ingest source in the log).
    func newToken() -> UInt64 { transports.newToken() }
    /// Poller events of `token` go to `transport` from now on (a connection it accepted)…
    func own(_ token: UInt64, by transport: any LoopTransport) { transports.own(token, by: transport) }
    /// … until it closes the connection.
    func forget(_ token: UInt64) { transports.forget(token) }

    /// Connections open on every transport.
    var openConnections: Int { transports.all.reduce(0) { $0 + $1.openConnections } }

    /// Runs `body` on the loop thread at the start of its next turn. Any thread.
    func submit(_ body: @escaping @Sendable (ServiceLoop) -> Void) {
        inbox.post(body)
        poller.wake()
    }

    /// Starts the shutdown at the end of this turn (loop thread; `Service.shutdown()` submits it).
    func stop() {
        if case .running = state { state = .draining(since: ServiceClock.monotonicNow()) }
    }

    /// The loop: polls, dispatches, runs commands and timers, flushes; until `stop()`, then drains.
    func run() {
        state = .running(since: ServiceClock.monotonicNow())
        _ = sextant_set_timer_slack(Self.timerSlack)
        while case .running = state {
            do {
                try poller.wait(timeoutNanoseconds: nextTimeout()) { token, events in
                    if token != Poller.wakeToken { transports.owner(of: token)?.handle(token: token, events: events) }
                }
            } catch {
                logger.error("poll failed; stopping", ["error": error])
                stop()
            }
            runCommands()
            timers()
            endOfTurn()
        }
        drain()
    }

    private func runCommands() {
        for c in inbox.take() { c(self) }
    }

    /// Nanoseconds until the next timer: the end of the feed's flush hold, a transport's deadline or
    /// the once-a-second sweep.
    private func nextTimeout() -> Int64 {
        let now = ServiceClock.monotonicNow()
        var next = lastSweep + 1_000_000_000
        if let d = engine.hub.flushDeadline { next = min(next, d) }
        for t in transports.all { if let d = t.nextDeadline { next = min(next, d) } }
        return max(0, min(1_000_000_000, next - now))
    }

    private func timers() {
        let now = ServiceClock.monotonicNow()
        for t in transports.all { t.timers(now: now) }
        guard now - lastSweep >= 1_000_000_000 else { return }
        lastSweep = now
        engine.idleSweep(now: now)
        engine.forgetOldPositions()
        for t in transports.all { t.everySecond(now: now) }
        gate.everySecond(now: now)
        engine.logHistoryHealth()
        engine.watchAnchors()
    }

    /// After an ingest chunk: flushes the feed once its hold is over, and does the rest of the end of a
    /// turn once `turnWorkInterval` passed. With many busy gateways a position would otherwise wait for
    /// all of their chunks; handing the history over after every chunk would wake its writer as often.
    func flushIfDue() {
        let now = ServiceClock.monotonicNow()
        if now - lastTurnWork >= Self.turnWorkInterval {
            endOfTurn()
        } else if engine.hub.flushDue(now: now) {
            flushFeed(now: now)
        }
    }

    /// Hands the turn's positions to the history, closes overflowed feed clients, and flushes the feed
    /// clients that got bytes of their own, and those with lines waiting once the hold is over (see
    /// FeedHub+Flush.swift; the poller's timeout wakes the loop then). A client whose socket is full is
    /// flushed when the poller says it is writable again (the hub skips it): trying now would only cost
    /// a failed send.
    func endOfTurn() {
        let now = ServiceClock.monotonicNow()
        lastTurnWork = now
        engine.handOverHistory()
        flushFeed(now: now)
        if !statsWatchers.isEmpty { checkWatchers() }
    }

    /// Closes overflowed feed clients and flushes those with something due at `now` (monotonic ns).
    private func flushFeed(now: Int64) {
        for s in engine.hub.takeOverflowed() { transports.owner(of: s.id)?.overflowed(s) }
        engine.hub.forEachToFlush(now: now) { s in transports.owner(of: s.id)?.flush(s) }
    }

    /// After the loop: stop accepting, drop ingest connections, commit the history, flush and close the
    /// feed clients (waiting at most `drainTime` for slow readers).
    private func drain() {
        for t in transports.all { t.stopAccepting() }
        engine.closeHistory()
        let deadline = ServiceClock.monotonicNow() + Self.drainTime
        while !transports.all.allSatisfy({ $0.drain() }) && ServiceClock.monotonicNow() < deadline { usleep(5_000) }
        for t in transports.all { t.closeAll() }
        state = .stopped
    }

    /// Seconds since the loop was made.
    var uptimeSeconds: Double { Double(ServiceClock.monotonicNow() - startedMonotonic) * 1e-9 }

    /// The counters now: those the components keep in `counters`, and the gauges and counts of the
    /// pipeline, the feed hub and the history sink.
    func stats() -> ServiceStats {
        var s = counters.stats
        let p = engine.pipeline
        s.eventsApplied = p.eventsApplied
        for (key, n) in p.rejections.counts { s.rejected[key, default: 0] += n }
        s.positionsOut = p.positionsOut
        s.proximityOut = p.proximityOut
        s.removedOut = p.removedOut
        s.zoneEventsOut = p.zoneEventsOut
        s.ingestConnections = ingest?.openConnections ?? 0
        s.feedClients = feed?.openConnections ?? 0
        let hub = engine.hub
        s.feedLinesQueued = hub.linesQueued
        s.feedLinesDropped = hub.linesDropped
        s.feedRepliesDropped = hub.repliesDropped
        s.feedSends = hub.sends
        s.positionsRemembered = hub.lastPositions.count
        s.positionsNotRemembered = hub.lastPositions.refused
        s.tags = p.engine.tagCount
        s.sites = p.engine.trackers.count
        s.anchorsSilent = engine.silentAnchors.count
        if let h = engine.history?.sinkStats {
            s.historyRowsWritten = h.rowsWritten
            s.historyPending = h.pending
            s.historyDropped = h.dropped
            s.historyError = h.lastError
            s.historyFailures = h.failures
        }
        s.uptimeSeconds = uptimeSeconds
        s.mqtt = mqtt?.stats()
        return s
    }
}
