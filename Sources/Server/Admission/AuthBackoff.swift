/// Failed authentications per port and client address (keyed `ingest 10.0.0.7`, `feed 10.0.0.7`: a
/// gateway's failures do not close its address's dashboards out) and the back-off they earn: after
/// `freeFailures` failures in a row, each further one closes the address out for a while, doubling
/// from `firstDelay` up to `maxDelay`; a success forgets the address. A client that guesses tokens
/// then costs the service one refused `accept` per attempt, and the log one line a second.
///
/// Times are monotonic nanoseconds. Owned by the event loop.
struct AuthBackoff {
    /// Failures in a row an address may have before it is made to wait.
    static let freeFailures = 5
    /// The first wait, then doubled per failure, nanoseconds (1 s … 60 s).
    static let firstDelay: Int64 = 1_000_000_000
    static let maxDelay: Int64 = 60_000_000_000
    /// An address with no failure for this long is forgotten, nanoseconds (10 min).
    static let memory: Int64 = 600_000_000_000
    /// Addresses remembered at most (a bound on memory against many addresses).
    static let maxAddresses = 10_000

    struct Entry {
        var failures: Int
        var blockedUntil: Int64
        var lastFailure: Int64
    }

    private(set) var entries: [String: Entry] = [:]

    /// Records a failure of `address`; returns how long it is now closed out (ns), or nil when not.
    mutating func failed(_ address: String, now: Int64) -> Int64? {
        if entries[address] == nil, entries.count >= Self.maxAddresses { forgetOld(now: now) }
        guard entries[address] != nil || entries.count < Self.maxAddresses else { return nil }
        var e = entries[address] ?? Entry(failures: 0, blockedUntil: 0, lastFailure: now)
        e.failures += 1
        e.lastFailure = now
        var wait: Int64?
        if e.failures > Self.freeFailures {
            let doublings = min(e.failures - Self.freeFailures - 1, 6)
            wait = min(Self.maxDelay, Self.firstDelay << Int64(doublings))
            e.blockedUntil = now + wait!
        }
        entries[address] = e
        return wait
    }

    /// Forgets `address` after it authenticated.
    mutating func succeeded(_ address: String) { entries[address] = nil }

    /// Nanoseconds `address` must still wait before it may connect, or nil when it may now.
    func remaining(_ address: String, now: Int64) -> Int64? {
        guard let e = entries[address], e.blockedUntil > now else { return nil }
        return e.blockedUntil - now
    }

    /// Drops the addresses with no failure for `memory` (called once a second and when full).
    mutating func forgetOld(now: Int64) {
        guard !entries.isEmpty else { return }
        entries = entries.filter { now - $0.value.lastFailure < Self.memory || $0.value.blockedUntil > now }
    }
}
