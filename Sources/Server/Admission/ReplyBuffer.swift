/// The replies to one ingest source's rejected lines: a token bucket (`rate` replies a second, burst
/// `rate`) and a bound on unsent bytes (`limit`). A source that never reads fills its socket buffer,
/// then this buffer, and then its rejections are only counted, with one
/// `# N more rejected lines not shown` line before the next reply that fits.
struct ReplyBuffer {
    private var bytes: [UInt8] = []
    private var sentCount = 0
    private var tokens: Double
    private var lastRefill: Int64
    private let rate: Double
    private let limit: Int
    /// Rejections not replied to (rate limit or full buffer) since the last reply.
    private var unreported = 0

    /// - Parameter now: monotonic nanoseconds.
    init(rate: Double, limit: Int, now: Int64) {
        self.rate = rate
        self.limit = limit
        tokens = rate
        lastRefill = now
    }

    /// The bytes not sent yet.
    var pending: ArraySlice<UInt8> { bytes[sentCount...] }

    /// Queues `line` when the rate and the bound allow; otherwise counts it as not shown.
    /// - Parameter now: monotonic nanoseconds.
    mutating func add(_ line: String, now: Int64) {
        tokens = min(rate, tokens + Double(now - lastRefill) * 1e-9 * rate)
        lastRefill = now
        guard tokens >= 1, bytes.count - sentCount < limit else {
            unreported += 1
            return
        }
        tokens -= 1
        if unreported > 0 {
            bytes.append(contentsOf: "# \(unreported) more rejected lines not shown (counted by reason in #stats)\n".utf8)
            unreported = 0
        }
        bytes.append(contentsOf: line.utf8)
    }

    /// The first `n` pending bytes were sent.
    mutating func sent(_ n: Int) {
        sentCount += n
        if sentCount >= bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 65_536)
            sentCount = 0
        }
    }
}
