import Wire
import Pipeline

/// One source of ingest lines (a gateway's TCP connection, an MQTT topic), as `IngestAdmission`
/// sees it: its own line splitter (lines split across chunks are joined per source), where it is in
/// its life, its token, precision and rate limit, its rejection counters, and the bounded,
/// rate-limited buffer of `# rejected line N: reason` replies that its transport sends back.
///
/// It owns no descriptor: the transport that made it delivers the replies (`pendingReply`, then
/// `repliesSent`) and closes the source when the phase is `.closing`. Owned by the loop thread.
final class IngestSession {
    /// Where the source is in its life.
    enum Phase: Equatable {
        /// Connected to a port with tokens; waits for `auth SECRET` until `deadline` (monotonic ns).
        case awaitingAuth(deadline: Int64)
        /// Lines are admitted.
        case open
        /// To be closed by its transport at the end of the current chunk; `farewell` is the line to
        /// send it first, without waiting (a refused authentication, an idle timeout).
        case closing(reason: String, farewell: String?)
    }

    let id: UInt64
    /// Who sends the lines, for the log (`address:port`, a topic).
    let peer: String
    var phase: Phase
    var splitter: LineSplitter
    /// Rejections on this source, by reason key.
    var rejections = RejectionCounter(extraKeys: IngestAdmission.rejectionKeys)
    /// The token the source authenticated with (nil: none yet, or none needed).
    var access: AccessToken? { didSet { siteFilter = SiteFilter(access?.sites) } }
    /// The sites `access` lets the source write, as checked for each line.
    private(set) var siteFilter = SiteFilter.any
    /// The unit of this source's timestamps: `timestampPrecision`, or what its `#precision` line set.
    var precision: TimestampPrecision
    /// When bytes last arrived, monotonic nanoseconds (`ingestIdleTimeout`).
    var lastActivity: Int64
    /// True once a `clock_skew` rejection on this source has been logged (logged once per source).
    var clockSkewLogged = false
    private var replies: ReplyBuffer
    /// Token bucket of lines (`maxLinesPerSecond`; rate 0: no limit), burst one second's worth.
    private let lineRate: Double
    private var lineTokens: Double
    private var lineRefill: Int64

    /// - Parameters:
    ///   - id: unique among the loop's tokens (`ServiceLoop.newToken()`), for the log.
    ///   - authDeadline: when set, the first line must be `auth TOKEN` before it (monotonic ns).
    ///   - now: monotonic nanoseconds.
    init(id: UInt64, peer: String, maxLineLength: Int, repliesPerSecond: Double, replyBuffer: Int,
         linesPerSecond: Double = 0, authDeadline: Int64? = nil, precision: TimestampPrecision = .ns, now: Int64) {
        self.id = id
        self.peer = peer
        phase = authDeadline.map { .awaitingAuth(deadline: $0) } ?? .open
        self.precision = precision
        lineRate = linesPerSecond
        lineTokens = max(linesPerSecond, 1)
        lineRefill = now
        splitter = LineSplitter(maxLineLength: maxLineLength)
        replies = ReplyBuffer(rate: repliesPerSecond, limit: replyBuffer, now: now)
        lastActivity = now
    }

    /// Lines received from this source.
    var linesIn: Int { splitter.lineCount }
    /// True when replies wait to be sent.
    var hasReply: Bool { !replies.pending.isEmpty }
    /// The replies not sent yet, for the transport to send.
    var pendingReply: ArraySlice<UInt8> { replies.pending }
    /// The transport sent the first `n` bytes of `pendingReply`.
    func repliesSent(_ n: Int) { replies.sent(n) }

    /// True while the first line must be an `auth` line.
    var awaitsAuth: Bool {
        if case .awaitingAuth = phase { return true }
        return false
    }

    /// The reason the source is to be closed, if it is.
    var closeReason: String? {
        if case .closing(let reason, _) = phase { return reason }
        return nil
    }

    /// Marks the source to be closed at the end of its chunk (the first reason stays).
    func close(reason: String, farewell: String? = nil) {
        if closeReason == nil { phase = .closing(reason: reason, farewell: farewell) }
    }

    /// True when the source may send one more line now (always, without a rate limit).
    /// - Parameter now: monotonic nanoseconds.
    func admitLine(now: Int64) -> Bool {
        guard lineRate > 0 else { return true }
        if now > lineRefill {
            lineTokens = min(max(lineRate, 1), lineTokens + Double(now - lineRefill) * 1e-9 * lineRate)
            lineRefill = now
        }
        guard lineTokens >= 1 else { return false }
        lineTokens -= 1
        return true
    }

    /// Counts a rejection and, within the rate and buffer limits, queues its reply.
    /// - Parameter now: monotonic nanoseconds.
    func reject(_ r: LineRejection, now: Int64) {
        rejections.record(key: r.key)
        replies.add("# rejected \(r.message) [\(r.key)]\n", now: now)
    }
}
