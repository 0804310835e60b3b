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
    var rejections = RejectionCounter(extraKeys: ["unknown_site", "unknown_anchor", "unsupported_technology"])
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

    init(id: UInt64, socket: Socket, peer: String, maxLineLength: Int, repliesPerSecond: Double,
         replyBuffer: Int, now: Int64) {
        self.id = id; self.socket = socket; self.peer = peer
        splitter = LineSplitter(maxLineLength: maxLineLength)
        rate = repliesPerSecond
        tokens = repliesPerSecond
        lastRefill = now
        replyLimit = replyBuffer
    }

    /// Lines received on this connection.
    var linesIn: Int { splitter.lineCount }
    /// True when replies wait to be written.
    var hasReply: Bool { replySent < reply.count }

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
