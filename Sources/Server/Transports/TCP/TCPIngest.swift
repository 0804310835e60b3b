/// The TCP ingest port: accepts gateways, reads their bytes into `IngestAdmission`, sends the
/// rejection replies back, and closes connections (peer gone, failed authentication, deadlines).
///
/// Touched only on the loop thread.
final class TCPIngest: LoopTransport {
    /// One gateway connection: its socket and its admission session.
    final class Connection {
        let socket: Socket
        let session: IngestSession
        /// True while write interest is registered.
        var waitingForWritable = false

        init(socket: Socket, session: IngestSession) {
            self.socket = socket
            self.session = session
        }
    }

    private unowned let loop: ServiceLoop
    private let admission: IngestAdmission
    private let listener: TCPListener
    private(set) var connections: [UInt64: Connection] = [:]

    init(loop: ServiceLoop, admission: IngestAdmission, listener: TCPListener) {
        self.loop = loop
        self.admission = admission
        self.listener = listener
    }

    var openConnections: Int { connections.count }
    var nextDeadline: Int64? { listener.pausedUntil }

    func handle(token: UInt64, events: UInt32) {
        if token == listener.token {
            accept()
        } else if let c = connections[token] {
            event(c, events: events)
        }
    }

    func timers(now: Int64) { listener.resumeIfDue(now: now) }

    /// Closes the connections whose authentication or idle deadline passed.
    func everySecond(now: Int64) {
        for c in Array(connections.values) {
            admission.expire(c.session, now: now)
            closeIfDone(c)
        }
    }

    func stopAccepting() {
        listener.close()
        for c in Array(connections.values) { close(c, reason: "shutdown") }
    }

    func closeAll() {}

    private func accept() {
        listener.acceptPending(gate: loop.gate, openConnections: { connections.count },
                               allConnections: { loop.openConnections }, newToken: { loop.newToken() },
                               open: { fd, token, peer in
            Connection(socket: Socket(fd: fd), session: admission.makeSession(id: token, peer: peer))
        }, keep: { c in
            connections[c.session.id] = c
            loop.own(c.session.id, by: self)
            loop.counters.stats.ingestConnectionsTotal += 1
            loop.logger.info("gateway connected", ["conn": c.session.id, "peer": c.session.peer])
        })
    }

    private func event(_ c: Connection, events: UInt32) {
        if events & Poller.writable != 0 { flushReplies(c) }
        guard connections[c.session.id] != nil, events & (Poller.readable | Poller.hangup) != 0 else { return }
        let result: IOResult<Int>
        do {
            result = try Syscall.read(c.socket.fd, loop.readBuffer)
        } catch {
            close(c, reason: "\(error)")
            return
        }
        switch result {
        case .wouldBlock: return
        case .done(0): close(c, reason: "closed by peer")
        case .done(let n):
            admission.ingest(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<n]), from: c.session)
            if !closeIfDone(c), c.session.hasReply { flushReplies(c) }
            loop.flushIfDue()
        }
    }

    /// Closes a connection its session marked for closing, after sending its farewell line once.
    /// - Returns: true when it was closed.
    @discardableResult
    private func closeIfDone(_ c: Connection) -> Bool {
        guard case .closing(let reason, let farewell) = c.session.phase else { return false }
        if let farewell { _ = try? Syscall.send(c.socket.fd, Array(farewell.utf8)[...]) }
        close(c, reason: reason)
        return true
    }

    /// Writes replies as far as the socket takes them; watches for writability while it is full.
    private func flushReplies(_ c: Connection) {
        do {
            var blocked = false
            while c.session.hasReply {
                guard case .done(let n) = try Syscall.send(c.socket.fd, c.session.pendingReply) else {
                    blocked = true
                    break
                }
                c.session.repliesSent(n)
            }
            if blocked != c.waitingForWritable {
                try loop.poller.modify(c.socket.fd, token: c.session.id, writable: blocked)
                c.waitingForWritable = blocked
            }
        } catch {
            close(c, reason: "\(error)")
        }
    }

    /// Closes a gateway connection; a partial last line is dropped (and counted).
    private func close(_ c: Connection, reason: String) {
        guard connections.removeValue(forKey: c.session.id) != nil else { return }
        loop.forget(c.session.id)
        admission.ended(c.session)
        loop.poller.remove(c.socket.fd)
        c.socket.close()
        loop.gate.released(port: .ingest, peer: c.session.peer)
        loop.logger.info("gateway disconnected", ["conn": c.session.id, "peer": c.session.peer, "reason": reason,
                                                  "lines": c.session.linesIn, "rejected": c.session.rejections.total])
    }
}
