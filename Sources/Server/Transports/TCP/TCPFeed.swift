#if canImport(Glibc)
import Glibc
#endif
import Positioning
import Wire

/// The TCP feed port: accepts clients, reads their request lines (`auth`, the subscription, `#stats`,
/// `#anchors`), subscribes them to the feed hub, sends what the hub queued for them, and closes them.
///
/// Touched only on the loop thread.
final class TCPFeed: LoopTransport {
    private unowned let loop: ServiceLoop
    private let config: ServiceConfig
    private let hub: FeedHub
    private let listener: TCPListener
    private(set) var clients: [UInt64: FeedClient] = [:]
    /// Clients waiting for their subscription line (or their `auth` line).
    private var awaiting: [FeedClient] = []

    init(loop: ServiceLoop, hub: FeedHub, listener: TCPListener) {
        self.loop = loop
        self.config = loop.config
        self.hub = hub
        self.listener = listener
    }

    var openConnections: Int { clients.count }

    var nextDeadline: Int64? {
        var next = listener.pausedUntil
        for c in awaiting {
            if let d = c.deadline { next = min(next ?? d, d) }
        }
        return next
    }

    func handle(token: UInt64, events: UInt32) {
        if token == listener.token {
            accept()
        } else if let c = clients[token] {
            feedEvent(c, events: events)
        }
    }

    /// Resumes a paused listener; a client whose wait ended gets everything (no subscription line)
    /// or is refused (no `auth` line).
    func timers(now: Int64) {
        listener.resumeIfDue(now: now)
        guard !awaiting.isEmpty else { return }
        for c in awaiting {
            guard let deadline = c.deadline, deadline <= now else { continue }
            // A long turn (a backlog on many gateways) can pass the deadline before the client's
            // request was read: read what it sent before treating it as silent.
            feedEvent(c, events: Poller.readable)
            guard clients[c.id] != nil else { continue }
            switch c.phase {
            case .awaitingSubscription(let d) where d <= now: activate(c, .all, byDefault: true)
            case .awaitingAuth(let d) where d <= now: refuseUnauthenticated(c, verdict: nil)
            default: break
            }
        }
    }

    func overflowed(_ subscriber: FeedSubscriber) {
        guard let c = clients[subscriber.id] else { return }
        loop.counters.stats.feedClientsDisconnected += 1
        loop.logger.warning("feed client too slow; disconnected", ["client": c.id, "queued": c.queuedLines])
        closeFeed(c)
    }

    func flush(_ subscriber: FeedSubscriber) {
        if let c = clients[subscriber.id] { flushFeed(c) }
    }

    func stopAccepting() { listener.close() }

    func drain() -> Bool {
        var open = false
        for c in clients.values where ((try? c.flush(hub)) ?? .done) == .blocked { open = true }
        return !open
    }

    func closeAll() {
        for c in Array(clients.values) { closeFeed(c) }
    }

    private func accept() {
        listener.acceptPending(gate: loop.gate, openConnections: { clients.count },
                               allConnections: { loop.openConnections }, newToken: { loop.newToken() },
                               open: { fd, token, peer in
            try? Syscall.setNoDelay(fd)
            let now = ServiceClock.monotonicNow()
            let phase: FeedClient.Phase = config.feedTokens.isRequired
                ? .awaitingAuth(deadline: now + Int64(config.authTimeout * 1e9))
                : .awaitingSubscription(deadline: now + Int64(config.subscriptionWait * 1e9))
            return FeedClient(id: token, socket: Socket(fd: fd), peer: peer, phase: phase)
        }, keep: { client in
            clients[client.id] = client
            loop.own(client.id, by: self)
            awaiting.append(client)
            loop.counters.stats.feedClientsTotal += 1
            loop.logger.info("feed client connected", ["conn": client.id, "peer": client.peer])
        })
    }

    private func feedEvent(_ c: FeedClient, events: UInt32) {
        if events & Poller.writable != 0 { flushFeed(c) }
        guard clients[c.id] != nil, c.phase != .closingAfterFlush,
              events & (Poller.readable | Poller.hangup) != 0 else { return }
        if c.inputClosed {
            // Only a hang-up reaches a client whose input ended: its socket is gone both ways.
            closeFeed(c)
            return
        }
        let result: IOResult<Int>
        do { result = try Syscall.read(c.socket.fd, loop.readBuffer) } catch {
            closeFeed(c)
            return
        }
        switch result {
        case .wouldBlock: return
        case .done(0): inputEnded(c)
        case .done(let n): request(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<n]), from: c)
        }
    }

    /// The client closed its side (`nc -N` after its subscription): an unfinished last line counts as
    /// a line, a client still waiting for its subscription gets everything, and a subscribed one reads
    /// on; it is closed when a send fails or the socket hangs up. Waiting for `auth`, it is closed.
    private func inputEnded(_ c: FeedClient) {
        if !c.input.isEmpty { request(UnsafeRawBufferPointer(start: nil, count: 0), from: c, ended: true) }
        guard clients[c.id] != nil, c.phase != .closingAfterFlush else { return }
        switch c.phase {
        case .awaitingAuth: closeFeed(c); return
        case .awaitingSubscription: activate(c, .all)
        case .active, .closingAfterFlush: break
        }
        guard clients[c.id] != nil, c.phase == .active else { return }
        c.inputClosed = true
        do { try loop.poller.modify(c.socket.fd, token: c.id, writable: c.waitingForWritable, readable: false) } catch {
            closeFeed(c)
        }
    }

    /// Handles what a feed client sent: its subscription line first, then `#stats` and `#anchors` requests.
    private func request(_ bytes: UnsafeRawBufferPointer, from c: FeedClient, ended: Bool = false) {
        if ended {
            let line = String(decoding: c.input, as: UTF8.self).trimmingCharacters(in: [" ", "\t", "\r"])
            c.input.removeAll()
            requestLine(line, from: c)
            return
        }
        for byte in bytes {
            guard c.phase != .closingAfterFlush else { return }
            if byte != UInt8(ascii: "\n") {
                guard c.input.count < config.maxSubscriptionLength else {
                    refuse(c, "request line longer than \(config.maxSubscriptionLength) bytes")
                    return
                }
                c.input.append(byte)
                continue
            }
            let line = String(decoding: c.input, as: UTF8.self).trimmingCharacters(in: [" ", "\t", "\r"])
            c.input.removeAll(keepingCapacity: true)
            requestLine(line, from: c)
        }
    }

    private func requestLine(_ line: String, from c: FeedClient) {
        if case .awaitingAuth = c.phase {
            let verdict = config.feedTokens.check(line: Array(line.utf8))
            guard case .accepted(let token) = verdict else {
                refuseUnauthenticated(c, verdict: verdict)
                return
            }
            c.access = token
            loop.gate.authenticated(port: .feed, peer: c.peer)
            c.phase = .awaitingSubscription(deadline: ServiceClock.monotonicNow() + Int64(config.subscriptionWait * 1e9))
            loop.logger.info("feed client authenticated", ["conn": c.id, "peer": c.peer, "token": token.name])
            return
        }
        if line.hasPrefix("#stats") {
            answer(c, lines: 64) {
                let lp = line.hasSuffix(" lp") || line.hasSuffix(" line-protocol")
                if let sites = c.access?.sites { return siteStats(sites, lineProtocol: lp) }
                return lp ? loop.stats().lineProtocol(time: ServiceClock.wallNow()) : loop.stats().commentLines
            }
            return
        }
        if line == "#anchors" {
            answer(c, lines: 1) { loop.engine.anchorHealthLines(sites: c.access?.sites) }
            return
        }
        switch c.phase {
        case .awaitingSubscription: break
        case .active where c.subscribedByDefault: break   // a subscription that came after the wait
        default: return   // later lines are ignored
        }
        do {
            activate(c, try Subscription.parse(line, maxItems: config.maxSubscriptionItems))
        } catch {
            refuse(c, error.message)
        }
    }

    /// Replies to a request inside the client's queue limit (see `FeedHub.reply`); a client that asked
    /// before subscribing is closed after the reply. `text` is made only when at least `lines` fit.
    private func answer(_ c: FeedClient, lines: Int, _ text: () -> String) {
        if case .awaitingSubscription = c.phase {
            reply(c, text(), thenClose: true)
            return
        }
        guard hub.hasRoom(c, lines: lines) else {
            hub.refuseReply(c, lines: lines)
            return
        }
        if hub.reply(c, text()) { flushFeed(c) }
    }

    /// The `#stats` reply to a token restricted to `sites`: only the counters of those sites.
    private func siteStats(_ sites: Set<String>, lineProtocol: Bool) -> String {
        let trackers = loop.engine.pipeline.engine.trackers.filter { sites.contains($0.key) }
        let fields: [(String, Int)] = [
            ("sites", trackers.count), ("tags", trackers.values.reduce(0) { $0 + $1.tagCount }),
            ("anchors_silent", loop.engine.silentAnchors.filter { sites.contains($0.site) }.count),
            ("positions_remembered", hub.lastPositions.entries.keys.filter { sites.contains($0.site) }.count),
        ]
        let uptime = loop.uptimeSeconds
        if lineProtocol {
            return "sextant_stats " + (fields.map { "\($0.0)=\($0.1)i" } + ["uptime_seconds=\(uptime)"]).joined(separator: ",")
                + " \(ServiceClock.wallNow())\n"
        }
        return fields.map { "# \($0.0)=\($0.1)\n" }.joined() + "# uptime_seconds=\(Int(uptime))\n# end\n"
    }

    /// Starts the live feed for a client: the last position of every selected tag, then its live lines.
    private func activate(_ c: FeedClient, _ requested: Subscription, byDefault: Bool = false) {
        var subscription = requested
        if let allowed = c.access?.sites {
            if let asked = subscription.sites {
                let denied = asked.subtracting(allowed)
                guard denied.isEmpty else {
                    refuse(c, "this token may not read site(s) \(denied.sorted().joined(separator: ","))")
                    return
                }
            } else {
                subscription.sites = allowed
            }
        }
        awaiting.removeAll { $0 === c }
        // A subscription that arrives after the wait replaces the default one, without a second snapshot.
        let again = c.phase == .active
        c.subscribedByDefault = byDefault
        c.phase = .active
        if again {
            if subscription != c.subscription { hub.subscribe(c, to: subscription, snapshot: false) }
        } else {
            hub.subscribe(c, to: subscription)
        }
        flushFeed(c)
        loop.logger.info(again ? "feed client subscribed after the wait" : "feed client subscribed",
                    ["conn": c.id, "snapshot": c.snapshot?.keys.count ?? 0, "default": byDefault,
                     "sites": subscription.sites.map { $0.sorted().joined(separator: ",") } ?? "*",
                     "tags": subscription.tags.map { $0.sorted().joined(separator: ",") } ?? "*"])
    }

    /// Counts and logs a failed authentication (verdict nil: too late), answers `# error: …` and closes.
    private func refuseUnauthenticated(_ c: FeedClient, verdict: AccessList.Verdict?) {
        loop.gate.authenticationFailed(port: .feed, peer: c.peer, verdict: verdict)
        refuse(c, ConnectionGate.message(for: verdict))
    }

    /// Sends `# error: …` and closes after flushing.
    private func refuse(_ c: FeedClient, _ message: String) {
        reply(c, "# error: \(message)\n", thenClose: true)
    }

    /// Queues a last reply for a client (outside the line limit) and closes it once it is sent; or,
    /// without `thenClose`, a reply inside the limit.
    private func reply(_ c: FeedClient, _ text: String, thenClose: Bool) {
        if thenClose { hub.detach(c) }   // no live line after the last reply
        hub.reply(c, text, force: thenClose)
        if thenClose {
            awaiting.removeAll { $0 === c }
            c.phase = .closingAfterFlush
        }
        flushFeed(c)
    }

    /// Sends what a client has queued; watches for writability while its socket is full.
    private func flushFeed(_ c: FeedClient) {
        do {
            let blocked = try c.flush(hub) == .blocked
            if !blocked && c.phase == .closingAfterFlush {
                closeFeed(c)
                return
            }
            let readable = c.phase != .closingAfterFlush && !c.inputClosed
            if blocked != c.waitingForWritable || !readable {
                try loop.poller.modify(c.socket.fd, token: c.id, writable: blocked, readable: readable)
                c.waitingForWritable = blocked
            }
        } catch {
            closeFeed(c)
        }
    }

    private func closeFeed(_ c: FeedClient) {
        guard clients.removeValue(forKey: c.id) != nil else { return }
        loop.forget(c.id)
        hub.unsubscribe(c)
        awaiting.removeAll { $0 === c }
        loop.poller.remove(c.socket.fd)
        c.socket.close()
        loop.gate.released(port: .feed, peer: c.peer)
        loop.logger.info("feed client disconnected", ["conn": c.id, "queued": c.linesQueued, "dropped": c.linesDropped,
                                                 "replies_dropped": c.repliesDropped])
    }
}
