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
        let result: IOResult<Int>
        do { result = try Syscall.read(c.socket.fd, readBuffer) } catch {
            closeFeed(c)
            return
        }
        switch result {
        case .wouldBlock: return
        case .done(0): closeFeed(c)
        case .done(let n): request(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]), from: c)
        }
    }

    /// Handles what a feed client sent: its subscription line first, then `#stats` and `#anchors` requests.
    private func request(_ bytes: UnsafeRawBufferPointer, from c: FeedClient) {
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
            answer(c, line.hasSuffix(" lp") || line.hasSuffix(" line-protocol")
                ? stats().lineProtocol(time: ServiceClock.wallNow())
                : stats().commentLines)
            return
        }
        if line == "#anchors" {
            answer(c, anchorHealthLines(sites: c.access?.sites))
            return
        }
        guard case .awaitingSubscription = c.phase else { return }   // later lines are ignored
        do {
            activate(c, try Subscription.parse(line, maxItems: config.maxSubscriptionItems))
        } catch {
            refuse(c, error.message)
        }
    }

    /// Replies to a request; a client that asked before subscribing is closed after the reply.
    private func answer(_ c: FeedClient, _ text: String) {
        if case .awaitingSubscription = c.phase {
            reply(c, text, thenClose: true)
        } else {
            reply(c, text, thenClose: false)
        }
    }

    /// Starts the live feed for a client: queues the last position of every selected tag.
    func activate(_ c: FeedClient, _ requested: Subscription) {
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
        c.subscription = subscription
        c.phase = .active
        if let tags = subscription.tags {
            for t in tags { feedsByTag[t, default: []].append(c) }
        } else {
            feedsForAnyTag.append(c)
        }
        var count = 0
        if subscription.kinds?.contains(.position) ?? true {
            let keys = lastPositions.keys.sorted { ($0.site, $0.tag) < ($1.site, $1.tag) }
            for key in keys where subscription.matches(site: key.site, tag: key.tag, kind: .position) {
                var bytes: [UInt8] = []
                if OutputEncoder.append(.position(lastPositions[key]!), to: &bytes) {
                    c.queue.append(bytes)
                    count += 1
                }
            }
        }
        c.snapshotAllowance = count
        if !c.dirty { c.dirty = true; dirtyFeeds.append(c) }
        logger.info("feed client subscribed", ["conn": c.id, "snapshot": count,
                                               "sites": subscription.sites.map { $0.sorted().joined(separator: ",") } ?? "*",
                                               "tags": subscription.tags.map { $0.sorted().joined(separator: ",") } ?? "*"])
    }

    /// Counts and logs a failed authentication (verdict nil: too late), answers `# error: …` and closes.
    func refuseUnauthenticated(_ c: FeedClient, verdict: AccessList.Verdict?) {
        authenticationFailed(peer: c.peer, port: .feed, verdict: verdict)
        refuse(c, Self.message(for: verdict))
    }

    /// Takes a client out of the live lists (it is closing).
    func deactivate(_ c: FeedClient) {
        guard c.phase == .active else { return }
        if let tags = c.subscription.tags {
            for t in tags {
                feedsByTag[t]?.removeAll { $0 === c }
                if feedsByTag[t]?.isEmpty == true { feedsByTag[t] = nil }
            }
        } else {
            feedsForAnyTag.removeAll { $0 === c }
        }
    }

    /// Sends `# error: …` and closes after flushing.
    private func refuse(_ c: FeedClient, _ message: String) {
        reply(c, "# error: \(message)\n", thenClose: true)
    }

    /// Queues text for a client outside the line limit; with `thenClose`, closes once it is sent.
    private func reply(_ c: FeedClient, _ text: String, thenClose: Bool) {
        c.queue.append(Array(text.utf8))
        c.snapshotAllowance += 1
        if thenClose {
            awaitingFeeds.removeAll { $0 === c }
            deactivate(c)
            c.phase = .closingAfterFlush
        }
        flushFeed(c)
    }

    /// Sends what a client has queued; watches for writability while its socket is full.
    func flushFeed(_ c: FeedClient) {
        do {
            let blocked = try c.flush() == .blocked
            if !blocked && c.phase == .closingAfterFlush {
                closeFeed(c)
                return
            }
            let readable = c.phase != .closingAfterFlush
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
        deactivate(c)
        awaitingFeeds.removeAll { $0 === c }
        poller.remove(c.socket.fd)
        c.socket.close()
        released(peer: c.peer)
        logger.info("feed client disconnected", ["conn": c.id, "queued": c.linesQueued, "dropped": c.linesDropped])
    }
}
