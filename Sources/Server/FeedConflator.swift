import Positioning

/// Conflation for screens (`rate=N`): at most N position lines per tag per second, and N proximity
/// lines per tag and anchor, always the latest. A line that comes sooner than `1/N` s after the last
/// one sent for its key is held, replacing any held before it, and sent when its slot opens
/// (`FeedHub.releaseConflated`); removed and zone lines are never held (a removal drops what its tag
/// had held). Times are the server's monotonic clock, nanoseconds.
///
/// Touched only on the loop thread.
final class FeedConflator {
    struct Key: Hashable {
        var site: String
        var tag: String
        var anchor: String?
    }

    /// Nanoseconds between two lines of one key.
    let interval: Int64
    private var lastSent: [Key: Int64] = [:]
    private(set) var held: [Key: Output] = [:]
    /// The earliest time a held line may go (`.max`: none held).
    private(set) var nextDue = Int64.max

    init(rate: Int) { interval = 1_000_000_000 / Int64(max(1, rate)) }

    /// Decides for one output at `now`. - Returns: true when it is held (not to be sent now).
    func hold(_ output: Output, now: Int64) -> Bool {
        let key: Key
        switch output {
        case .position(let p): key = Key(site: p.site, tag: p.tag, anchor: nil)
        case .proximity(let s, let t, let a, _, _, _): key = Key(site: s, tag: t, anchor: a)
        case .removed(let s, let t, _, _):
            held = held.filter { !($0.key.site == s && $0.key.tag == t) }
            lastSent = lastSent.filter { !($0.key.site == s && $0.key.tag == t) }
            return false
        case .zone: return false
        }
        let due = (lastSent[key] ?? .min).addingReportingOverflow(interval)
        if due.overflow || due.partialValue <= now {
            lastSent[key] = now
            held[key] = nil
            return false
        }
        held[key] = output
        nextDue = min(nextDue, due.partialValue)
        return true
    }

    /// The held lines whose slot opened by `now`, oldest key first; they count as sent at `now`.
    func release(now: Int64) -> [Output] {
        guard nextDue <= now else { return [] }
        var out: [Output] = []
        var next = Int64.max
        for (key, output) in held {
            let due = (lastSent[key] ?? .min).addingReportingOverflow(interval)
            if due.overflow || due.partialValue <= now {
                out.append(output)
                lastSent[key] = now
                held[key] = nil
            } else {
                next = min(next, due.partialValue)
            }
        }
        nextDue = next
        return out.sorted { Self.time(of: $0) < Self.time(of: $1) }
    }

    /// An output's event time (Unix ns).
    static func time(of output: Output) -> Nanoseconds {
        switch output {
        case .position(let p): p.time
        case .proximity(_, _, _, _, _, let t), .removed(_, _, _, let t), .zone(_, _, _, _, let t): t
        }
    }
}
