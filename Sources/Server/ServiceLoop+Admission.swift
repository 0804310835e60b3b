#if canImport(Glibc)
import Glibc
#endif
import Positioning
import Wire

/// Who may connect: the connection limits (per port and per address) and the `auth` first line.
extension ServiceLoop {
    /// The two ports, for the limits and the messages.
    enum Port: String {
        case ingest, feed
    }

    /// Accepts the pending connections of a listener, at most 64 a turn so that one port cannot
    /// starve the loop. A connection over a limit gets `# error: …` and is closed. Each admitted one
    /// gets a fresh token; `open` makes the object that owns its descriptor, which `keep` stores once
    /// the poller watches it (otherwise the owner closes it).
    func acceptPending<Owner>(on listener: Socket?, port: Port, open: (Int32, UInt64, String) -> Owner,
                              keep: (Owner, UInt64) -> Void) {
        guard let listener else { return }
        for _ in 0..<64 {
            let fd: Int32
            do {
                guard case .done(let accepted) = try Syscall.accept(listener.fd) else { return }
                fd = accepted
            } catch {
                if error.code == EMFILE || error.code == ENFILE {
                    // Out of descriptors: the listener stays readable, so stop watching it for a moment
                    // rather than spin on it; connections wait in the backlog meanwhile.
                    pauseAccepting(listener, port: port)
                } else {
                    logger.error("accept failed on the \(port.rawValue) port", ["error": error])
                }
                return
            }
            let peer = Syscall.peerName(fd)
            let address = Self.address(of: peer)
            if let wait = authBackoff.remaining("\(port.rawValue) \(address)", now: ServiceClock.monotonicNow()) {
                let socket = Socket(fd: fd)
                let seconds = (wait + 999_999_999) / 1_000_000_000
                _ = try? Syscall.send(fd, Array("# error: too many failed authentications from \(address); retry in \(seconds) s\n".utf8)[...])
                socket.close()
                authBackoffRefused += 1
                logRefusal(port: port, peer: peer, reason: "authentication back-off (\(seconds) s)")
                continue
            }
            if let refusal = admissionRefusal(port: port, address: address) {
                let socket = Socket(fd: fd)
                _ = try? Syscall.send(fd, Array("# error: \(refusal)\n".utf8)[...])
                socket.close()
                connectionsRefused += 1
                logRefusal(port: port, peer: peer, reason: refusal)
                continue
            }
            let token = nextToken
            nextToken += 1
            let owner = open(fd, token, peer)
            do { try poller.register(fd, token: token) } catch {
                logger.error("cannot watch a new connection", ["port": port.rawValue, "error": error])
                continue
            }
            if port == .feed { feedConnectionsByAddress[address, default: 0] += 1 } else { connectionsByAddress[address, default: 0] += 1 }
            keep(owner, token)
        }
    }

    /// Stops polling a listener for 0.1 s after accept ran out of descriptors (logged once a second).
    func pauseAccepting(_ listener: Socket, port: Port) {
        let now = ServiceClock.monotonicNow()
        poller.remove(listener.fd)
        pausedListeners.append((listener, port == .ingest ? Self.ingestToken : Self.feedToken, now + 100_000_000))
        if now - lastRefusalLog >= 1_000_000_000 {
            logger.warning("out of file descriptors: not accepting for 0.1 s", ["port": port.rawValue,
                                                                                 "open_connections": sessions.count + feeds.count])
            lastRefusalLog = now
        }
    }

    /// Watches the paused listeners again once their pause is over.
    func resumeAccepting(now: Int64) {
        pausedListeners.removeAll { listener, token, until in
            guard until <= now else { return false }
            do { try poller.register(listener.fd, token: token) } catch {
                logger.error("cannot watch a listener again", ["error": "\(error)"])
                return false
            }
            return true
        }
    }

    /// Why a new connection from `address` to `port` is refused, or nil when it is admitted.
    func admissionRefusal(port: Port, address: String) -> String? {
        let open = port == .ingest ? sessions.count : feeds.count
        let limit = port == .ingest ? config.maxIngestConnections : config.maxFeedClients
        if open >= limit { return "the \(port.rawValue) port has its maximum of \(limit) connections; try later" }
        let fromAddress = (port == .feed ? feedConnectionsByAddress : connectionsByAddress)[address, default: 0]
        if fromAddress >= config.maxConnectionsPerAddress {
            return "\(address) has its maximum of \(config.maxConnectionsPerAddress) connections to the \(port.rawValue) port; try later"
        }
        return nil
    }

    /// Forgets a closed connection in the per-address counts of its port.
    func released(peer: String, port: Port = .ingest) {
        let address = Self.address(of: peer)
        if port == .feed {
            guard let n = feedConnectionsByAddress[address] else { return }
            feedConnectionsByAddress[address] = n > 1 ? n - 1 : nil
        } else {
            guard let n = connectionsByAddress[address] else { return }
            connectionsByAddress[address] = n > 1 ? n - 1 : nil
        }
    }

    /// The address part of `address:port`.
    static func address(of peer: String) -> String {
        peer.lastIndex(of: ":").map { String(peer[..<$0]) } ?? peer
    }

    /// Logs a refused connection, at most once a second (a flood of connections must not flood the log).
    private func logRefusal(port: Port, peer: String, reason: String) {
        let now = ServiceClock.monotonicNow()
        guard now - lastRefusalLog >= 1_000_000_000 else {
            refusalsNotLogged += 1
            return
        }
        logger.warning("connection refused", ["port": port.rawValue, "peer": peer, "reason": reason,
                                              "not_logged_since_last": refusalsNotLogged])
        lastRefusalLog = now
        refusalsNotLogged = 0
    }

    // MARK: authentication

    /// Checks an ingest connection's first line against the gateway tokens. On failure the gateway
    /// gets `# error: …` and the connection is closed at the end of the chunk.
    func authenticate(_ s: IngestSession, _ piece: SplitLine) {
        let verdict: AccessList.Verdict
        switch piece {
        case .line(_, let bytes): verdict = config.ingestTokens.check(line: bytes)
        case .tooLong: verdict = .notAnAuthLine
        }
        switch verdict {
        case .accepted(let token):
            s.access = token
            s.authDeadline = nil
            authBackoff.succeeded("ingest \(Self.address(of: s.peer))")
            logger.info("gateway authenticated", ["conn": s.id, "peer": s.peer, "token": token.name])
        case .notAnAuthLine, .unknownSecret:
            authenticationFailed(peer: s.peer, port: .ingest, verdict: verdict)
            s.closeReason = "authentication failed"
            s.sendBestEffort("# error: \(Self.message(for: verdict))\n")
        }
    }

    /// Closes the gateway connections that did not authenticate in time (checked once a second).
    func closeUnauthenticatedGateways(now: Int64) {
        for s in Array(sessions.values) {
            guard let d = s.authDeadline, d <= now else { continue }
            authenticationFailed(peer: s.peer, port: .ingest, verdict: nil)
            s.sendBestEffort("# error: \(Self.message(for: nil))\n")
            closeIngest(s, reason: "authentication timed out")
        }
    }

    /// Counts a failed authentication (verdict nil: the deadline passed), adds it to the address's
    /// back-off, and logs it, at most once a second (a flood of wrong tokens must not flood the log).
    func authenticationFailed(peer: String, port: Port, verdict: AccessList.Verdict?) {
        authFailures += 1
        let now = ServiceClock.monotonicNow()
        let wait = authBackoff.failed("\(port.rawValue) \(Self.address(of: peer))", now: now)
        guard now - lastAuthFailureLog >= 1_000_000_000 else {
            authFailuresNotLogged += 1
            return
        }
        logger.warning("authentication failed", ["port": port.rawValue, "peer": peer,
                                                 "reason": Self.message(for: verdict),
                                                 "backoff_s": wait.map { Double($0) * 1e-9 } ?? 0,
                                                 "not_logged_since_last": authFailuresNotLogged])
        lastAuthFailureLog = now
        authFailuresNotLogged = 0
    }

    /// Closes the gateway connections that sent nothing for `ingestIdleTimeout` (without
    /// authentication nothing else ends a connection that never sends; checked once a second).
    func closeIdleGateways(now: Int64) {
        let limit = Nanoseconds(saturatingSeconds: config.ingestIdleTimeout)
        for s in Array(sessions.values) where now.saturatingSubtract(s.lastActivity) >= limit {
            s.sendBestEffort("# error: idle for \(config.ingestIdleTimeout) s (ingestIdleTimeout); closing\n")
            closeIngest(s, reason: "idle")
        }
    }

    /// What a client reads when its first line does not let it in (verdict nil: it sent none in time).
    static func message(for verdict: AccessList.Verdict?) -> String {
        switch verdict {
        case .accepted: "authenticated"
        case .notAnAuthLine: "authentication required: send 'auth TOKEN' as the first line"
        case .unknownSecret: "authentication failed: unknown token"
        case nil: "authentication timed out: send 'auth TOKEN' as the first line"
        }
    }
}
