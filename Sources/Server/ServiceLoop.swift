import Foundation
import Positioning
import Wire
import Pipeline

/// The site and tag of a last known position.
struct TagKey: Hashable {
    var site: String
    var tag: String
}

/// The event loop of the service: one thread polling both listeners, every connection and
/// a wake-up pipe. Ingest bytes are split, decoded and positioned here; outputs are encoded once and
/// queued for the matching feed clients and the history sink.
///
/// Threading invariant: everything here is touched only on the loop thread (the `Thread` that calls
/// `run()`), except `commands`, guarded by `commandLock`, and `poller.wake()`. That is why the class
/// may be `@unchecked Sendable`: other threads reach its state only through `submit(_:)`.
final class ServiceLoop: @unchecked Sendable {
    static let ingestToken: UInt64 = 1
    static let feedToken: UInt64 = 2
    /// The loop thread's name, as `top -H` and `perf` show it (`sextant.history` is the writer's).
    static let threadName = "sextant.loop"

    let config: ServiceConfig
    let logger: Logger
    let poller: Poller
    var ingestListener: Socket?
    var feedListener: Socket?
    var pipeline: Pipeline
    let history: (any HistorySink)?
    var sessions: [UInt64: IngestSession] = [:]
    var feeds: [UInt64: FeedClient] = [:]
    /// Subscriptions, queues, snapshots and last positions of the feed clients.
    let hub: FeedHub
    /// The HTTP streams (SSE, WebSocket) among the hub's subscribers.
    let http = HTTPFeed()
    /// Clients waiting for their subscription line.
    var awaitingFeeds: [FeedClient] = []
    /// Positions of this loop turn, handed to the history at the end of the turn (one lock a turn).
    var pendingHistory: [PositionEstimate] = []
    var nextToken: UInt64 = 3
    /// Counters not kept by the pipeline.
    var linesIn = 0
    var partialLinesDropped = 0
    var ingestTotal = 0
    var feedTotal = 0
    var feedDisconnected = 0
    /// Connections refused by a limit, and failed authentications.
    var connectionsRefused = 0
    var authFailures = 0
    /// Failed authentications per address and the wait they earned; connections refused for it.
    var authBackoff = AuthBackoff()
    var authBackoffRefused = 0
    var lastAuthFailureLog: Int64 = 0
    var authFailuresNotLogged = 0
    /// Open connections per IP address, on each port (separate budgets: gateways from an address
    /// cannot lock its dashboards and `sextant status` out of the feed port, nor the reverse).
    var connectionsByAddress: [String: Int] = [:]
    var feedConnectionsByAddress: [String: Int] = [:]
    var lastRefusalLog: Int64 = 0
    /// Listeners not polled until the given monotonic time (accept ran out of descriptors).
    var pausedListeners: [(Socket, UInt64, Int64)] = []
    var refusalsNotLogged = 0
    /// The newest event time applied, and the monotonic time it was applied (for the idle sweep).
    var lastEventTime: Nanoseconds?
    var lastEventMonotonic: Int64 = 0
    var lastSweep: Int64 = 0
    /// Anchors warned about as silent (`watchAnchors`), until they are heard again.
    var silentAnchors: Set<AnchorKey> = []
    /// When the feed clients were last flushed (monotonic ns).
    var lastFlush: Int64 = 0
    /// The history sink's counters when last logged (see `logHistoryHealth`).
    var historyLogged = HistorySinkStats()
    let startedMonotonic = ServiceClock.monotonicNow()
    /// One read buffer for every connection (the loop reads one connection at a time).
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    var stopping = false

    private let commandLock = NSLock()
    private var commands: [@Sendable (ServiceLoop) -> Void] = []

    init(config: ServiceConfig, sites: [Site], lastPositions: [PositionEstimate], history: (any HistorySink)?,
         logger: Logger) throws(SystemError) {
        self.config = config
        self.logger = logger
        self.history = history
        poller = try Poller()
        pipeline = Pipeline(sites: sites, config: config.engine, timestamps: .requireTimestamp,
                            maxLineLength: config.maxLineLength)
        hub = FeedHub(limit: config.feedQueueLines, policy: config.overflow, rememberedTags: config.maxRememberedTags)
        for p in lastPositions { hub.lastPositions.record(p) }
    }

    deinit { readBuffer.deallocate() }

    /// Binds both listeners and registers them. - Returns: the bound ports (ingest, feed).
    func bind() throws(SystemError) -> (UInt16, UInt16) {
        let i = try Socket.listen(host: config.bindAddress, port: config.ingestPort)
        let f = try Socket.listen(host: config.bindAddress, port: config.feedPort)
        try poller.register(i.fd, token: Self.ingestToken)
        try poller.register(f.fd, token: Self.feedToken)
        ingestListener = i
        feedListener = f
        return (try i.localPort(), try f.localPort())
    }

    /// Runs `body` on the loop thread at the start of its next turn. Any thread.
    func submit(_ body: @escaping @Sendable (ServiceLoop) -> Void) {
        commandLock.lock()
        commands.append(body)
        commandLock.unlock()
        poller.wake()
    }

    /// The loop: runs until a command sets `stopping`, then closes everything (see `finish()`).
    func run() {
        while !stopping {
            let timeout = nextTimeoutMilliseconds()
            do {
                try poller.wait(timeoutMilliseconds: timeout) { token, events in handle(token: token, events: events) }
            } catch {
                logger.error("poll failed; stopping", ["error": error])
                stopping = true
            }
            runCommands()
            timers()
            endOfTurn()
        }
        finish()
    }

    private func runCommands() {
        commandLock.lock()
        let pending = commands
        commands.removeAll()
        commandLock.unlock()
        for c in pending { c(self) }
    }

    private func handle(token: UInt64, events: UInt32) {
        switch token {
        case Poller.wakeToken: break
        case Self.ingestToken: acceptIngest()
        case Self.feedToken: acceptFeed()
        default:
            if let s = sessions[token] {
                ingestEvent(s, events: events)
            } else if let c = feeds[token] {
                feedEvent(c, events: events)
            }
        }
    }

    /// Milliseconds until the next timer: a subscription deadline or the once-a-second sweep.
    private func nextTimeoutMilliseconds() -> Int32 {
        let now = ServiceClock.monotonicNow()
        var next = lastSweep + 1_000_000_000
        for c in awaitingFeeds {
            if let d = c.deadline { next = min(next, d) }
        }
        for (_, _, until) in pausedListeners { next = min(next, until) }
        if let due = hub.nextConflationDue { next = min(next, due) }
        return Int32(max(0, min(1000, (next - now + 999_999) / 1_000_000)))
    }

    private func timers() {
        let now = ServiceClock.monotonicNow()
        if !pausedListeners.isEmpty { resumeAccepting(now: now) }
        if !awaitingFeeds.isEmpty {
            for c in awaitingFeeds {
                guard let deadline = c.deadline, deadline <= now else { continue }
                // A long turn (a backlog on many gateways) can pass the deadline before the client's
                // request was read: read what it sent before treating it as silent.
                feedEvent(c, events: Poller.readable)
                guard feeds[c.id] != nil else { continue }
                switch c.phase {
                case .awaitingSubscription(let d) where d <= now: activate(c, .all, byDefault: true)
                case .awaitingAuth(let d) where d <= now: refuseUnauthenticated(c, verdict: nil)
                default: break
                }
            }
        }
        if now - lastSweep >= 1_000_000_000 {
            lastSweep = now
            idleSweep(now: now)
            forgetOldPositions()
            if config.ingestTokens.isRequired { closeUnauthenticatedGateways(now: now) }
            else if config.ingestIdleTimeout > 0 { closeIdleGateways(now: now) }
            authBackoff.forgetOld(now: now)
            logHistoryHealth()
            watchAnchors()
        }
    }

    /// When the stream has been quiet for a second, advances the engine by the time that passed since
    /// its newest event, so silent tags are removed even when no line arrives.
    private func idleSweep(now: Int64) {
        guard let t = lastEventTime, now - lastEventMonotonic >= 1_000_000_000 else { return }
        pipeline.advance(to: t.saturatingAdd(now - lastEventMonotonic)) { route($0) }
    }

    /// Flushes the feed clients that got lines and the ingest replies, closes overflowed clients, and
    /// hands the turn's positions to the history.
    func endOfTurn() {
        lastFlush = ServiceClock.monotonicNow()
        if !pendingHistory.isEmpty {
            history?.append(contentsOf: pendingHistory)
            pendingHistory.removeAll(keepingCapacity: true)
        }
        hub.releaseConflated(now: lastFlush)
        for s in hub.takeOverflowed() {
            guard feeds[s.id] != nil else { streamOverflowed(s); continue }
            feedDisconnected += 1
            logger.warning("feed client too slow; disconnected", ["client": s.id, "queued": s.queuedLines])
            closeFeed(unsafeDowncast(s, to: FeedClient.self))
        }
        // A client whose socket is full is flushed when the poller says it is writable again (the hub
        // skips it): trying now would only cost a failed send.
        hub.forEachToFlush { s in
            if feeds[s.id] != nil { flushFeed(unsafeDowncast(s, to: FeedClient.self)) } else { flushStreamIfHTTP(s) }
        }
        wakeHTTPIfNeeded()
    }

    /// The counters now.
    func stats() -> ServiceStats {
        var s = ServiceStats()
        s.linesIn = linesIn
        s.eventsApplied = pipeline.eventsApplied
        s.rejected = pipeline.rejections.counts
        s.positionsOut = pipeline.positionsOut
        s.proximityOut = pipeline.proximityOut
        s.removedOut = pipeline.removedOut
        s.zoneEventsOut = pipeline.zoneEventsOut
        s.partialLinesDropped = partialLinesDropped
        s.ingestConnections = sessions.count
        s.ingestConnectionsTotal = ingestTotal
        s.feedClients = feeds.count
        s.feedClientsTotal = feedTotal
        s.feedLinesQueued = hub.linesQueued
        s.feedLinesDropped = hub.linesDropped
        s.feedRepliesDropped = hub.repliesDropped
        s.feedSends = hub.sends
        s.positionsRemembered = hub.lastPositions.count
        s.positionsNotRemembered = hub.lastPositions.refused
        s.feedClientsDisconnected = feedDisconnected
        s.connectionsRefused = connectionsRefused
        s.authFailures = authFailures
        s.authBackoffRefused = authBackoffRefused
        s.tags = pipeline.engine.tagCount
        s.sites = pipeline.engine.trackers.count
        s.anchorsSilent = silentAnchors.count
        if let h = history?.sinkStats {
            s.historyRowsWritten = h.rowsWritten
            s.historyPending = h.pending
            s.historyDropped = h.dropped
            s.historyError = h.lastError
        }
        s.uptimeSeconds = Double(ServiceClock.monotonicNow() - startedMonotonic) * 1e-9
        return s
    }

    /// After the loop: stop accepting, drop ingest connections, commit the history, flush and close the
    /// feed clients (waiting at most half a second for slow readers).
    private func finish() {
        for l in [ingestListener, feedListener].compactMap({ $0 }) { poller.remove(l.fd); l.close() }
        ingestListener = nil
        feedListener = nil
        for s in Array(sessions.values) { closeIngest(s, reason: "shutdown") }
        if let history {
            history.append(contentsOf: pendingHistory)
            pendingHistory.removeAll()
            let rows = history.flush()
            history.close()
            logger.info("history committed", ["rows": rows])
            logHistoryAtShutdown(history.sinkStats)
        }
        let deadline = ServiceClock.monotonicNow() + 500_000_000
        var open = Array(feeds.values)
        while !open.isEmpty && ServiceClock.monotonicNow() < deadline {
            open = open.filter { c in ((try? c.flush(hub)) ?? .done) == .blocked }
            if !open.isEmpty { usleep(5_000) }
        }
        for c in Array(feeds.values) { closeFeed(c) }
    }
}
