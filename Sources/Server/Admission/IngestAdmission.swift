import Positioning
import Wire
import Pipeline

/// The one way ingest lines enter the engine, whatever their transport: each source's `auth` line,
/// its lines-per-second limit, `#precision` lines, the site restriction of its token, the clock
/// window and plausibility of timestamps, the rejection replies and the counters. The TCP ingest port
/// uses it now; any other source (an MQTT subscription) uses it the same way.
///
/// A transport keeps one `IngestSession` per source and, on the loop thread:
///
///     let session = admission.makeSession(id: loop.newToken(), peer: "mqtt sextant/hall/ingest")
///     admission.ingest(bytes, from: session)        // each message or chunk, in order
///     if session.hasReply {                         // `# rejected line N: … [key]` lines
///         publish(session.pendingReply)             // to wherever this source reads replies
///         session.repliesSent(session.pendingReply.count)
///     }
///     if let reason = session.closeReason { … }     // send the farewell, close, then:
///     admission.ended(session)                      // when the source goes away
///
/// and calls `expire(_:now:)` on each session once a second (authentication and idle deadlines).
/// A transport whose messages arrive on another thread (a broker client's callback) hands each one
/// over with `loop.submit { loop in loop.admission.ingest(…, from: session) }`, the bytes copied into
/// the closure; the session is made and kept on the loop thread. A source authenticated by its
/// transport (a broker's own login) is made with `authenticate: false`; `session.access` may then
/// carry its token's site restriction.
///
/// Touched only on the loop thread.
final class IngestAdmission {
    /// The rejection keys the service decides itself: `site_not_allowed` (a source's token does not
    /// cover the line's site), `rate_limited` (a source over its lines-per-second limit), `clock_skew`
    /// (a timestamp outside the `TimestampWindow`) and the `PlausibleTimestamps` keys.
    static let serverRejectionKeys = ["site_not_allowed", "rate_limited", "clock_skew"] + PlausibleTimestamps.keys
    /// Every key a source's rejections are counted under (besides the decoder's).
    static let rejectionKeys = Pipeline.rejectionKeys + serverRejectionKeys

    private let config: ServiceConfig
    private let logger: Logger
    private let counters: ServiceCounters
    private let engine: ServiceEngine
    private let gate: ConnectionGate

    init(config: ServiceConfig, logger: Logger, counters: ServiceCounters, engine: ServiceEngine,
         gate: ConnectionGate) {
        self.config = config
        self.logger = logger
        self.counters = counters
        self.engine = engine
        self.gate = gate
    }

    /// A new source with the configured limits: it must authenticate first when the ingest tokens
    /// are required and `authenticate` is true (false: a transport that authenticated it otherwise).
    func makeSession(id: UInt64, peer: String, authenticate: Bool = true) -> IngestSession {
        let now = ServiceClock.monotonicNow()
        return IngestSession(id: id, peer: peer, maxLineLength: config.maxLineLength,
                             repliesPerSecond: config.rejectionRepliesPerSecond,
                             replyBuffer: config.rejectionReplyBuffer, linesPerSecond: config.maxLinesPerSecond,
                             authDeadline: authenticate && config.ingestTokens.isRequired
                                ? now + Int64(config.authTimeout * 1e9) : nil,
                             precision: config.timestampPrecision, now: now)
    }

    /// Splits, admits, decodes and positions one chunk from a source. Lines without a timestamp get
    /// the receive time, read once per chunk; lines stamped too far from it are refused as
    /// `clock_skew`. Outputs go to the feed hub and the history (`ServiceEngine.route`); rejections
    /// to the session's replies. Afterwards `session.closeReason` says whether to close it.
    func ingest(_ chunk: UnsafeRawBufferPointer, from s: IngestSession) {
        let received = ServiceClock.wallNow()
        let policy = TimestampPolicy.defaultTo(received)
        let monotonic = ServiceClock.monotonicNow()
        let limit = config.maxLineLength
        let rateLimited = config.maxLinesPerSecond > 0
        var sink = AdmissionSink(admission: self, engine: engine, session: s, counters: counters,
                                 checks: EventChecks(window: config.timestampWindow(reference: received),
                                                     plausible: PlausibleTimestamps(reference: received),
                                                     owned: engine.ownedSites),
                                 record: config.recordMeasurements ? engine.history : nil, now: monotonic)
        s.lastActivity = monotonic
        var lines = 0
        s.splitter.feed(chunk) { piece in
            lines += 1
            switch s.phase {
            case .closing: return
            case .awaitingAuth:
                authenticate(s, piece)
                return
            case .open: break
            }
            if rateLimited, !s.admitLine(now: monotonic) {
                let n = piece.number
                refuse(LineRejection(
                    line: n, key: "rate_limited",
                    message: "line \(n): over this connection's limit of \(config.maxLinesPerSecond) lines per second; dropped"),
                    of: s, now: monotonic)
                return
            }
            if case .line(let n, let bytes) = piece, bytes.first == UInt8(ascii: "#"),
               let command = PrecisionCommand(bytes) {
                setPrecision(command, line: n, of: s, now: monotonic)
                return
            }
            sink.piece = piece
            engine.pipeline.process(piece, timestamps: policy, maxLineLength: limit, precision: s.precision, into: &sink)
        }
        counters.stats.linesIn += lines
        if sink.appliedAny { engine.noteActivity(at: monotonic) }
    }

    /// Once a second: marks a source to be closed when its authentication deadline passed, or when it
    /// sent nothing for `ingestIdleTimeout` (without authentication nothing else ends a source that
    /// never sends).
    func expire(_ s: IngestSession, now: Int64) {
        if config.ingestTokens.isRequired {
            guard case .awaitingAuth(let d) = s.phase, d <= now else { return }
            gate.authenticationFailed(port: .ingest, peer: s.peer, verdict: nil)
            s.close(reason: "authentication timed out", farewell: "# error: \(ConnectionGate.message(for: nil))\n")
        } else if config.ingestIdleTimeout > 0 {
            let limit = Nanoseconds(saturatingSeconds: config.ingestIdleTimeout)
            guard now.saturatingSubtract(s.lastActivity) >= limit else { return }
            s.close(reason: "idle", farewell: "# error: idle for \(config.ingestIdleTimeout) s (ingestIdleTimeout); closing\n")
        }
    }

    /// The source went away: a partial last line is dropped (and counted).
    func ended(_ s: IngestSession) {
        if s.splitter.discardPartialLine() { counters.stats.partialLinesDropped += 1 }
    }

    /// Counts a rejection the service decided and queues its reply.
    private func refuse(_ r: LineRejection, of s: IngestSession, now: Int64) {
        counters.rejected(r.key)
        s.reject(r, now: now)
    }

    /// Checks a source's first line against the gateway tokens. On failure the source is closed at
    /// the end of the chunk, after `# error: …`.
    private func authenticate(_ s: IngestSession, _ piece: SplitLine) {
        let verdict: AccessList.Verdict
        switch piece {
        case .line(_, let bytes): verdict = config.ingestTokens.check(line: bytes)
        case .tooLong: verdict = .notAnAuthLine
        }
        switch verdict {
        case .accepted(let token):
            s.access = token
            s.phase = .open
            gate.authenticated(port: .ingest, peer: s.peer)
            logger.info("gateway authenticated", ["conn": s.id, "peer": s.peer, "token": token.name])
        case .notAnAuthLine, .unknownSecret:
            gate.authenticationFailed(port: .ingest, peer: s.peer, verdict: verdict)
            s.close(reason: "authentication failed", farewell: "# error: \(ConnectionGate.message(for: verdict))\n")
        }
    }

    /// Applies a `#precision UNIT` line to the source's later lines; an unknown unit is refused
    /// (as `bad_value`, answered) and the precision is unchanged.
    private func setPrecision(_ command: PrecisionCommand, line: Int, of s: IngestSession, now: Int64) {
        switch command {
        case .set(let p):
            s.precision = p
        case .unknown(let text):
            refuse(LineRejection(
                line: line, key: "bad_value",
                message: "line \(line): '#precision' has unknown value '\(text)' (expected \(TimestampPrecision.names)); "
                    + "the precision stays \(s.precision.rawValue)"), of: s, now: now)
        }
    }

    /// Logs a source's first `clock_skew` rejection (the later ones are only counted and replied to).
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
}
