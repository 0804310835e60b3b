/// The loop's side of cluster mode: the fence. At each turn it checks the lease (`ClusterLease`): once
/// it ran out, the instance stops processing every site at once (it no longer knows that the locks
/// are still its own) and forgets their trackers' state; the coordinator then stops their ingest
/// clients and connects again. The lease is shorter than the time after which the database frees the
/// locks of a silent connection, so the instance stops before another may take over.
///
/// Touched only on the loop thread.
final class ClusterTransport: LoopTransport {
    private unowned let loop: ServiceLoop
    let lease: ClusterLease
    /// Times the lease ran out while sites were owned.
    private(set) var fences = 0

    init(loop: ServiceLoop, lease: ClusterLease) {
        self.loop = loop
        self.lease = lease
    }

    var nextDeadline: Int64? {
        guard let owned = loop.engine.ownedSites, !owned.isEmpty else { return nil }
        return lease.expiry
    }

    func timers(now: Int64) {
        guard let owned = loop.engine.ownedSites, !owned.isEmpty, lease.isExpired(now: now) else { return }
        fence(reason: "no heartbeat reached the database within the lease")
    }

    /// Stops processing every owned site now (loop thread).
    func fence(reason: String) {
        guard let owned = loop.engine.ownedSites, !owned.isEmpty else { return }
        fences += 1
        loop.engine.ownedSites = []
        loop.mqtt?.drainInbox()  // owned no more: what waits in the inbox is dropped
        for site in owned { loop.engine.pipeline.reset(site: site) }
        lease.fenced = true
        loop.logger.error("cluster: stopped processing every site", ["reason": reason, "sites": owned.sorted().joined(separator: ",")])
    }

    func handle(token: UInt64, events: UInt32) {}
    func stopAccepting() {}
    func closeAll() {}
    var openConnections: Int { 0 }
}
