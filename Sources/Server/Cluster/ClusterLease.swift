import Foundation

/// When this instance's ownership was last confirmed by the database, shared by the coordinator's
/// thread (which renews it after each successful heartbeat) and the loop (which stops processing the
/// sites once it is older than the lease, even while the coordinator is blocked on a lost network).
///
/// Threading invariant: every stored property is guarded by `lock`; that is why the class may be
/// `@unchecked Sendable`.
final class ClusterLease: @unchecked Sendable {
    private let lock = NSLock()
    private var renewed: Int64 = .min
    private var _fenced = false
    /// The lease, nanoseconds.
    let duration: Int64

    init(seconds: Double) { duration = Int64(seconds * 1e9) }

    /// A heartbeat sent at monotonic time `sent` succeeded: the sites are ours until `sent + duration`.
    func renew(sentAt sent: Int64) { lock.withLock { renewed = max(renewed, sent) } }

    /// Monotonic time until which the sites are ours (nil before the first heartbeat).
    var expiry: Int64? { lock.withLock { renewed == .min ? nil : renewed + duration } }

    /// True when the lease ran out at monotonic time `now`.
    func isExpired(now: Int64) -> Bool { lock.withLock { renewed == .min || now >= renewed + duration } }

    /// Set by the loop when it stopped processing because the lease ran out; the coordinator then
    /// stops the sites' clients and reconnects, and clears it.
    var fenced: Bool {
        get { lock.withLock { _fenced } }
        set { lock.withLock { _fenced = newValue } }
    }

    /// Forgets the renewal (the connection was lost: its locks are gone).
    func revoke() { lock.withLock { renewed = .min } }
}
