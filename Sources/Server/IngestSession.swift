import Wire
import Pipeline

/// One gateway connection, owned by the event loop (never touched by another thread).
///
/// Holds the connection's own line splitter (so lines split across reads are joined per connection),
/// its rejection counters, and the bounded, rate-limited buffer of `# rejected line N: reason` replies.
final class IngestSession {
    let id: UInt64
    let socket: Socket
    let peer: String
    var splitter: LineSplitter
    /// Rejections on this connection, by reason key.
    var rejections = RejectionCounter(extraKeys: Pipeline.rejectionKeys)
    /// Replies waiting to be written back, and how many of them were sent.
    private(set) var reply: [UInt8] = []
    private var replySent = 0
    /// Token bucket of replies: `tokens` available, refilled at `rate` per second up to `rate`.
    private var tokens: Double
    private var lastRefill: Int64
    private let rate: Double
    private let replyLimit: Int
    /// Rejections not replied to (rate limit or full buffer) since the last reply.
    private var unreported = 0
    /// True while write interest is registered.
    var waitingForWritable = false
    /// The token the gateway authenticated with (nil: none yet, or none needed).
    var access: AccessToken?
    /// Until the gateway has sent its `auth` line: the monotonic deadline for it (nil: authenticated,
    /// or the port needs no authentication).
    var authDeadline: Int64?
    /// The unit of this connection's timestamps: `timestampPrecision`, or what its `#precision` line set.
    var precision: TimestampPrecision
    /// When bytes last arrived on the connection, monotonic nanoseconds (`ingestIdleTimeout`).
    var lastActivity: Int64
    /// True once a `clock_skew` rejection on this connection has been logged (logged once per connection).
    var clockSkewLogged = false
    /// Set when the connection is to be closed at the end of the current chunk (failed authentication).
    var closeReason: String?
    /// Token bucket of lines (`maxLinesPerSecond`; rate 0: no limit), burst one second's worth.
    private let lineRate: Double
    private var lineTokens: Double
    private var lineRefill: Int64

    init(id: UInt64, socket: Socket, peer: String, maxLineLength: Int, repliesPerSecond: Double,
         replyBuffer: Int, linesPerSecond: Double = 0, authDeadline: Int64? = nil,
         precision: TimestampPrecision = .ns, now: Int64) {
        self.id = id; self.socket = socket; self.peer = peer
        self.precision = precision
        self.authDeadline = authDeadline
        lineRate = linesPerSecond
        lineTokens = max(linesPerSecond, 1)
        lineRefill = now
        splitter = LineSplitter(maxLineLength: maxLineLength)
        rate = repliesPerSecond
        tokens = repliesPerSecond
        lastRefill = now
        lastActivity = now
        replyLimit = replyBuffer
    }

    /// Lines received on this connection.
    var linesIn: Int { splitter.lineCount }
    /// True when replies wait to be written.
    var hasReply: Bool { replySent < reply.count }

    /// True when the connection may send one more line now (always, without a rate limit).
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

    /// Sends `text` once, without waiting (used just before closing: the gateway may read why).
    func sendBestEffort(_ text: String) {
        _ = try? Syscall.send(socket.fd, Array(text.utf8)[...])
    }

    /// Counts a rejection and, within the rate and buffer limits, queues its reply.
    /// - Parameter now: monotonic nanoseconds.
    func reject(_ r: LineRejection, now: Int64) {
        rejections.record(key: r.key)
        tokens = min(rate, tokens + Double(now - lastRefill) * 1e-9 * rate)
        lastRefill = now
        guard tokens >= 1, reply.count - replySent < replyLimit else {
            unreported += 1
            return
        }
        tokens -= 1
        if unreported > 0 {
            reply.append(contentsOf: "# \(unreported) more rejected lines not shown (counted by reason in #stats)\n".utf8)
            unreported = 0
        }
        reply.append(contentsOf: "# rejected \(r.message) [\(r.key)]\n".utf8)
    }

    /// Writes replies as far as the socket takes them. A gateway that never reads fills its socket
    /// buffer, then this buffer, and then its replies are only counted.
    /// - Returns: `.blocked` when the socket is full.
    func flushReplies() throws(SystemError) -> FlushOutcome {
        while replySent < reply.count {
            let result = try Syscall.send(socket.fd, reply[replySent...])
            switch result {
            case .done(let n): replySent += n
            case .wouldBlock: return .blocked
            }
        }
        reply.removeAll(keepingCapacity: reply.capacity <= 65_536)
        replySent = 0
        return .done
    }
}
