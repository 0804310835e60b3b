#if canImport(Glibc)
import Glibc
#endif
import Positioning
import Wire
import Pipeline

/// Ingest connections: accept, read, split, decode, position, route; replies to rejected lines.
extension ServiceLoop {
    func acceptIngest() {
        acceptPending(on: ingestListener, port: .ingest, open: { fd, token, peer in
            let now = ServiceClock.monotonicNow()
            return IngestSession(id: token, socket: Socket(fd: fd), peer: peer, maxLineLength: config.maxLineLength,
                                 repliesPerSecond: config.rejectionRepliesPerSecond,
                                 replyBuffer: config.rejectionReplyBuffer, linesPerSecond: config.maxLinesPerSecond,
                                 authDeadline: config.ingestTokens.isRequired
                                    ? now + Int64(config.authTimeout * 1e9) : nil,
                                 precision: config.timestampPrecision, now: now)
        }, keep: { session, token in
            sessions[token] = session
            ingestTotal += 1
            logger.info("gateway connected", ["conn": token, "peer": session.peer])
        })
    }

    func ingestEvent(_ s: IngestSession, events: UInt32) {
        if events & Poller.writable != 0 { flushReplies(s) }
        guard sessions[s.id] != nil, events & (Poller.readable | Poller.hangup) != 0 else { return }
        let result: IOResult<Int>
        do {
            result = try Syscall.read(s.socket.fd, readBuffer)
        } catch {
            closeIngest(s, reason: "\(error)")
            return
        }
        switch result {
        case .wouldBlock: return
        case .done(0): closeIngest(s, reason: "closed by peer")
        case .done(let n):
            s.lastActivity = ServiceClock.monotonicNow()
            ingest(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]), from: s)
            // Send the outputs once half a millisecond of work has gathered, rather than only after every
            // ready connection has been read (with many busy gateways a position would wait for all of
            // their chunks), or after each chunk (1,000 gateways sending a few lines each would cost a
            // send to a dashboard per chunk).
            if ServiceClock.monotonicNow() - lastFlush >= 500_000 { endOfTurn() }
        }
    }

    /// Splits, decodes and positions one chunk from a gateway. Lines without a timestamp get the
    /// receive time, read once per chunk; lines stamped too far from it are refused as `clock_skew`.
    func ingest(_ chunk: UnsafeRawBufferPointer, from s: IngestSession) {
        let received = ServiceClock.wallNow()
        let policy = TimestampPolicy.defaultTo(received)
        let window = config.timestampWindow(reference: received)
        let plausible = PlausibleTimestamps(reference: received)
        let monotonic = ServiceClock.monotonicNow()
        let limit = config.maxLineLength
        let record = config.recordMeasurements ? history : nil
        let rateLimited = config.maxLinesPerSecond > 0
        var applied = false
        s.splitter.feed(chunk) { piece in
            linesIn += 1
            guard s.closeReason == nil else { return }
            if s.authDeadline != nil {
                authenticate(s, piece)
                return
            }
            if rateLimited, !s.admitLine(now: monotonic) {
                let n = piece.number
                s.reject(pipeline.reject(LineRejection(
                    line: n, key: "rate_limited",
                    message: "line \(n): over this connection's limit of \(config.maxLinesPerSecond) lines per second; dropped")),
                    now: monotonic)
                return
            }
            if case .line(let n, let bytes) = piece, bytes.first == UInt8(ascii: "#"),
               let command = PrecisionCommand(bytes) {
                setPrecision(command, line: n, of: s, now: monotonic)
                return
            }
            let refused = pipeline.process(piece, timestamps: policy, maxLineLength: limit,
                                           allowedSites: s.access?.sites, window: window,
                                           precision: s.precision, plausible: plausible,
                                           emit: { route($0) }) { event in
                applied = true
                if lastEventTime.map({ event.time > $0 }) ?? true { lastEventTime = event.time }
                if let record, case .line(_, let bytes) = piece {
                    record.append(measurementLine: Self.lineWithTimestamp(bytes, event.time), site: event.site,
                                  time: event.time)
                }
            }
            if let refused {
                s.reject(refused, now: monotonic)
                if let offset = refused.clockOffset { reportClockSkew(s, offset: offset) }
            }
        }
        if applied { lastEventMonotonic = monotonic }
        if let reason = s.closeReason {
            closeIngest(s, reason: reason)
            return
        }
        if s.hasReply { flushReplies(s) }
    }

    /// Applies a `#precision UNIT` line to the connection's later lines; an unknown unit is refused
    /// (as `bad_value`, answered) and the precision is unchanged.
    func setPrecision(_ command: PrecisionCommand, line: Int, of s: IngestSession, now: Int64) {
        switch command {
        case .set(let p):
            s.precision = p
        case .unknown(let text):
            s.reject(pipeline.reject(LineRejection(
                line: line, key: "bad_value",
                message: "line \(line): '#precision' has unknown value '\(text)' (expected \(TimestampPrecision.names)); "
                    + "the precision stays \(s.precision.rawValue)")), now: now)
        }
    }

    /// Logs a connection's first `clock_skew` rejection (the later ones are only counted and replied to).
    /// - Parameter offset: the line's timestamp minus the receive time, seconds.
    func reportClockSkew(_ s: IngestSession, offset: Double) {
        guard !s.clockSkewLogged else { return }
        s.clockSkewLogged = true
        let limit = offset > 0 ? config.maxClockAhead : config.maxClockBehind
        logger.warning("gateway clock skew: its lines are refused as clock_skew; is its clock set (NTP)?",
                       ["conn": s.id, "peer": s.peer, "offset_s": (offset * 10).rounded() / 10, "limit_s": limit])
    }

    /// The line as recorded: as received, with ` time` appended when it had no timestamp.
    static func lineWithTimestamp(_ bytes: UnsafeRawBufferPointer, _ time: Nanoseconds) -> [UInt8] {
        var line = Array(bytes)
        while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") { line.removeLast() }
        let digits = Array(String(time).utf8)
        let hasTimestamp = line.count > digits.count && line.suffix(digits.count).elementsEqual(digits)
            && line[line.count - digits.count - 1] == UInt8(ascii: " ")
        if !hasTimestamp { line.append(UInt8(ascii: " ")); line.append(contentsOf: digits) }
        return line
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

    func flushReplies(_ s: IngestSession) {
        do {
            let blocked = try s.flushReplies() == .blocked
            if blocked != s.waitingForWritable {
                try poller.modify(s.socket.fd, token: s.id, writable: blocked)
                s.waitingForWritable = blocked
            }
        } catch {
            closeIngest(s, reason: "\(error)")
        }
    }

    /// Closes a gateway connection; a partial last line is dropped (and counted).
    func closeIngest(_ s: IngestSession, reason: String) {
        guard sessions.removeValue(forKey: s.id) != nil else { return }
        if s.splitter.discardPartialLine() { partialLinesDropped += 1 }
        poller.remove(s.socket.fd)
        s.socket.close()
        released(peer: s.peer)
        logger.info("gateway disconnected", ["conn": s.id, "peer": s.peer, "reason": reason, "lines": s.linesIn,
                                             "rejected": s.rejections.total])
    }
}
