#if canImport(Glibc)
import Glibc
#endif
import Positioning
import Wire

/// Feed connections: accept, the subscription line, the snapshot, `#stats`, `#anchors`, flushing.
extension ServiceLoop {
    func acceptFeed() {
        acceptPending(on: feedListener, port: .feed, open: { fd, token, peer in
            try? Syscall.setNoDelay(fd)
            let now = ServiceClock.monotonicNow()
            let phase: FeedClient.Phase = config.feedTokens.isRequired
                ? .awaitingAuth(deadline: now + Int64(config.authTimeout * 1e9))
                : .awaitingSubscription(deadline: now + Int64(config.subscriptionWait * 1e9))
            return FeedClient(id: token, socket: Socket(fd: fd), peer: peer, phase: phase)
        }, keep: { client, token in
            feeds[token] = client
            awaitingFeeds.append(client)
            feedTotal += 1
            logger.info("feed client connected", ["conn": token, "peer": client.peer])
        })
    }

    func feedEvent(_ c: FeedClient, events: UInt32) {
        if events & Poller.writable != 0 { flushFeed(c) }
        guard feeds[c.id] != nil, c.phase != .closingAfterFlush,
              events & (Poller.readable | Poller.hangup) != 0 else { return }
        if c.inputClosed {
            // Only a hang-up reaches a client whose input ended: its socket is gone both ways.
            closeFeed(c)
            return
        }
        let result: IOResult<Int>
        do { result = try Syscall.read(c.socket.fd, readBuffer) } catch {
            closeFeed(c)
            return
        }
        switch result {
        case .wouldBlock: return
        case .done(0): inputEnded(c)
        case .done(let n): request(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]), from: c)
        }
    }

    /// The client closed its side (`nc -N` after its subscription): an unfinished last line counts as
    /// a line, a client still waiting for its subscription gets everything, and a subscribed one reads
    /// on; it is closed when a send fails or the socket hangs up. Waiting for `auth`, it is closed.
    private func inputEnded(_ c: FeedClient) {
        if !c.input.isEmpty { request(UnsafeRawBufferPointer(start: nil, count: 0), from: c, ended: true) }
        guard feeds[c.id] != nil, c.phase != .closingAfterFlush else { return }
        switch c.phase {
        case .awaitingAuth: closeFeed(c); return
        case .awaitingSubscription: activate(c, .all)
        case .active, .closingAfterFlush: break
        }
        guard feeds[c.id] != nil, c.phase == .active else { return }
        c.inputClosed = true
        do { try poller.modify(c.socket.fd, token: c.id, writable: c.waitingForWritable, readable: false) } catch {
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
            authBackoff.succeeded("feed \(Self.address(of: c.peer))")
            c.phase = .awaitingSubscription(deadline: ServiceClock.monotonicNow() + Int64(config.subscriptionWait * 1e9))
            logger.info("feed client authenticated", ["conn": c.id, "peer": c.peer, "token": token.name])
            return
        }
        if line.hasPrefix("#stats") {
            answer(c, lines: 64) {
                let lp = line.hasSuffix(" lp") || line.hasSuffix(" line-protocol")
                if let sites = c.access?.sites { return siteStats(sites, lineProtocol: lp) }
                return lp ? stats().lineProtocol(time: ServiceClock.wallNow()) : stats().commentLines
            }
            return
        }
        if line == "#anchors" {
            answer(c, lines: 1) { anchorHealthLines(sites: c.access?.sites) }
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
    func siteStats(_ sites: Set<String>, lineProtocol: Bool) -> String {
        let trackers = pipeline.engine.trackers.filter { sites.contains($0.key) }
        let fields: [(String, Int)] = [
            ("sites", trackers.count), ("tags", trackers.values.reduce(0) { $0 + $1.tagCount }),
            ("anchors_silent", silentAnchors.filter { sites.contains($0.site) }.count),
            ("positions_remembered", hub.lastPositions.entries.keys.filter { sites.contains($0.site) }.count),
        ]
        let uptime = Double(ServiceClock.monotonicNow() - startedMonotonic) * 1e-9
        if lineProtocol {
            return "sextant_stats " + (fields.map { "\($0.0)=\($0.1)i" } + ["uptime_seconds=\(uptime)"]).joined(separator: ",")
                + " \(ServiceClock.wallNow())\n"
        }
        return fields.map { "# \($0.0)=\($0.1)\n" }.joined() + "# uptime_seconds=\(Int(uptime))\n# end\n"
    }

    /// Starts the live feed for a client: the last position of every selected tag, then its live lines.
    func activate(_ c: FeedClient, _ requested: Subscription, byDefault: Bool = false) {
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
        awaitingFeeds.removeAll { $0 === c }
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
        logger.info(again ? "feed client subscribed after the wait" : "feed client subscribed",
                    ["conn": c.id, "snapshot": c.snapshot?.keys.count ?? 0, "default": byDefault,
                     "sites": subscription.sites.map { $0.sorted().joined(separator: ",") } ?? "*",
                     "tags": subscription.tags.map { $0.sorted().joined(separator: ",") } ?? "*"])
    }

    /// Counts and logs a failed authentication (verdict nil: too late), answers `# error: …` and closes.
    func refuseUnauthenticated(_ c: FeedClient, verdict: AccessList.Verdict?) {
        authenticationFailed(peer: c.peer, port: .feed, verdict: verdict)
        refuse(c, Self.message(for: verdict))
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
            awaitingFeeds.removeAll { $0 === c }
            c.phase = .closingAfterFlush
        }
        flushFeed(c)
    }

    /// Sends what a client has queued; watches for writability while its socket is full.
    func flushFeed(_ c: FeedClient) {
        do {
            let blocked = try c.flush(hub) == .blocked
            if !blocked && c.phase == .closingAfterFlush {
                closeFeed(c)
                return
            }
            let readable = c.phase != .closingAfterFlush && !c.inputClosed
            if blocked != c.waitingForWritable || !readable {
                try poller.modify(c.socket.fd, token: c.id, writable: blocked, readable: readable)
                c.waitingForWritable = blocked
            }
        } catch {
            closeFeed(c)
        }
    }

    func closeFeed(_ c: FeedClient) {
        guard feeds.removeValue(forKey: c.id) != nil else { return }
        hub.unsubscribe(c)
        awaitingFeeds.removeAll { $0 === c }
        poller.remove(c.socket.fd)
        c.socket.close()
        released(peer: c.peer, port: .feed)
        logger.info("feed client disconnected", ["conn": c.id, "queued": c.linesQueued, "dropped": c.linesDropped,
                                                 "replies_dropped": c.repliesDropped])
    }
}

/// Last positions kept for snapshots.
extension ServiceLoop {
    /// Once a second: forgets the last positions more than the tag timeout older than the engine's clock
    /// (tags reloaded from the store and not heard again; removed tags are forgotten at once).
    func forgetOldPositions() {
        guard let now = engineNow else { return }
        let (cutoff, overflow) = now.subtractingReportingOverflow(Int64(config.tagTimeout * 1e9))
        if !overflow { hub.lastPositions.prune(before: cutoff) }
    }
}
