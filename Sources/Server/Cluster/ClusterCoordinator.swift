import Foundation
import Positioning
import Store

/// Cluster mode's coordinator: on a thread of its own (every call blocks on PostgreSQL), each
/// `timing.interval` it sends the heartbeat, reads which instances are live, and balances: an instance
/// owning fewer than its share `ceil(sites / live instances)` takes free sites (each by its advisory
/// lock), one owning more releases one site per round, so a returning instance gets its share back.
///
/// Taking a site: its lock, then its saved learners and last positions from the database, put in
/// place on the loop, then its ingest client started. Releasing one: its ingest client stopped (the
/// broker keeps what comes next), what it had received positioned, its learners saved, and only then
/// its lock freed, so a site never has two owners. When the database cannot be reached the instance
/// stops processing every site at once (the lease, see `ClusterTransport`) and connects again.
///
/// Threading invariant: `owned`, `ledger` and the timers are touched only on the coordinator's thread;
/// `instances`, `started` and `stopRequested` are guarded by `lock`. That is why the class may be `@unchecked Sendable`.
final class ClusterCoordinator: @unchecked Sendable {
    let config: ClusterConfig
    let logger: Logger
    let timing: PostgresClusterLedger.Timing
    private let ledger: PostgresClusterLedger
    private let loop: ServiceLoop
    private let ingest: ClusterSiteIngest
    private let store: (any HistoryStorage)?
    let lease: ClusterLease
    /// Every site served, in this instance's order of preference (a hash of instance and site, so
    /// that instances prefer different sites).
    private let preference: [String]
    /// Coordinator thread: the sites owned, with the monotonic time each was taken.
    private var owned: [String: Int64] = [:]
    private var lastSnapshot: Int64 = 0
    private var connectFailures = 0
    private let lock = NSLock()
    private var stopRequested = false
    private var _instances: [PostgresClusterLedger.Instance] = []
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var started = false

    init(config: ClusterConfig, database: String, sites: [String], loop: ServiceLoop, ingest: ClusterSiteIngest,
         store: (any HistoryStorage)?, lease: ClusterLease, logger: Logger) {
        self.config = config
        self.logger = logger
        timing = PostgresClusterLedger.Timing(takeover: config.takeoverSeconds)
        ledger = PostgresClusterLedger(url: database, instance: config.instance, timing: timing)
        self.loop = loop
        self.ingest = ingest
        self.store = store
        self.lease = lease
        preference = sites.sorted { Self.rank(config.instance, $0) < Self.rank(config.instance, $1) }
    }

    /// FNV-1a of instance and site: a stable order of preference, different on each instance.
    static func rank(_ instance: String, _ site: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in instance.utf8 + [0] + site.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// The instances as last read (for the log and the tests).
    var instances: [PostgresClusterLedger.Instance] { lock.withLock { _instances } }

    /// Starts the coordinator's thread.
    func start() {
        lock.withLock { started = true }
        let t = Thread { [self] in
            ThreadName.setCurrent("sextant.cluster")
            run()
            finished.signal()
        }
        t.name = "sextant.cluster"
        t.start()
        logger.info("cluster on", ["instance": config.instance, "takeover_s": timing.takeover, "heartbeat_s": timing.interval,
                                   "lease_s": timing.lease, "database_drops_after_s": timing.serverDetection,
                                   "sites": preference.count])
    }

    /// Releases every owned site (ingest stopped, state saved, lock freed) and ends the thread. The
    /// loop must still run. Idempotent.
    func stop() {
        let (first, started) = lock.withLock { () -> (Bool, Bool) in
            defer { stopRequested = true }
            return (!stopRequested, self.started)
        }
        guard started else { return }
        if first { wake.signal() }
        finished.wait()
        finished.signal()
    }

    private var stopping: Bool { lock.withLock { stopRequested } }

    // MARK: the coordinator's thread

    private func run() {
        while !stopping {
            round()
            _ = wake.wait(timeout: .now() + timing.interval)
        }
        for site in owned.keys.sorted() { release(site, reason: "shutdown") }
        if ledger.isConnected { _ = try? ledger.heartbeat(owned: []) }
        ledger.disconnect()
    }

    /// One round: connect if needed, heartbeat, balance, snapshots.
    private func round() {
        if lease.fenced { lostDatabase("the lease ran out") }
        if !ledger.isConnected {
            do {
                try ledger.connect()
                if connectFailures > 0 { logger.info("cluster: connected to the database again", ["instance": config.instance]) }
                connectFailures = 0
            } catch {
                connectFailures += 1
                if connectFailures == 1 || connectFailures % 20 == 0 {
                    logger.warning("cluster: cannot connect to the database; no site is processed until it can",
                                   ["error": "\(error)", "attempts": connectFailures])
                }
                return
            }
        }
        do {
            let all = try confirmed { try ledger.heartbeat(owned: Array(owned.keys)) }
            lock.withLock { _instances = all }
            let live = max(1, all.filter(\.live).count)
            let share = (preference.count + live - 1) / live
            if owned.count > share {
                // The least preferred site goes, one per round.
                if let site = preference.last(where: { owned[$0] != nil }) { release(site, reason: "balance") }
            } else if owned.count < share {
                for site in preference where owned[site] == nil && owned.count < share {
                    guard !lease.isExpired(now: ServiceClock.monotonicNow()) else { break }
                    if try confirmed({ try ledger.tryLock(site: site) }) { try take(site) }
                }
            }
            let now = ServiceClock.monotonicNow()
            if now - lastSnapshot >= Int64(config.snapshotSeconds * 1e9) {
                lastSnapshot = now
                for site in owned.keys.sorted() { try save(site) }
            }
        } catch {
            lostDatabase("\(error)")
        }
    }

    /// Stops every site (without saving: the database is away) and drops the connection, whose locks
    /// the server frees.
    private func lostDatabase(_ reason: String) {
        lease.revoke()
        let sites = owned.keys.sorted()
        ingest.stopAll()
        _ = onLoop { l -> Bool in
            l.cluster?.fence(reason: reason)
            return true
        }
        owned.removeAll()
        ledger.disconnect()
        lease.fenced = false
        if !sites.isEmpty {
            logger.error("cluster: lost the database; gave up every site", ["instance": config.instance, "sites": sites.joined(separator: ","),
                                                                           "reason": reason])
        }
    }

    /// Takes a site whose lock was just acquired.
    private func take(_ site: String) throws {
        let saved = try confirmed { try ledger.loadSnapshot(site: site) }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let learners = saved.flatMap { try? decoder.decode(LearnerSnapshot.self, from: Data($0.utf8)) }
        let last = (try? store?.lastPositions(site: site)) ?? []
        let restored = onLoop { l -> Bool in
            l.engine.pipeline.reset(site: site)
            let ok = learners.map { l.engine.pipeline.restore(site: site, learners: $0) } ?? false
            for p in last { l.engine.hub.lastPositions.record(p) }
            l.engine.ownedSites?.insert(site)
            return ok
        } ?? false
        owned[site] = ServiceClock.monotonicNow()
        logger.info("site acquired", ["site": site, "instance": config.instance, "learners_restored": restored,
                                      "last_positions": last.count, "owned": owned.count])
        do { try ingest.start(site: site) } catch {
            logger.error("cluster: cannot start the site's ingest client; giving the site up", ["site": site, "error": "\(error)"])
            release(site, reason: "ingest client failed")
        }
    }

    /// Releases a site: ingest stopped, what was received positioned, learners saved, lock freed.
    private func release(_ site: String, reason: String) {
        ingest.stop(site: site)
        let snapshot = onLoop { l -> LearnerSnapshot? in
            l.mqtt?.drainInbox()
            let s = l.engine.pipeline.engine.learnersSnapshot(site: site)
            l.engine.ownedSites?.remove(site)
            l.engine.pipeline.reset(site: site)
            l.endOfTurn()
            return s
        } ?? nil
        owned[site] = nil
        do {
            if let snapshot { try confirmed { try ledger.saveSnapshot(site: site, json: Self.json(snapshot)) } }
            try confirmed { try ledger.unlock(site: site) }
            logger.info("site released", ["site": site, "instance": config.instance, "reason": reason, "owned": owned.count])
        } catch {
            // The lock cannot be freed: drop the connection, which frees it.
            lostDatabase("releasing \(site): \(error)")
        }
    }

    /// Saves one owned site's learners.
    private func save(_ site: String) throws {
        guard let s = onLoop({ $0.engine.pipeline.engine.learnersSnapshot(site: site) }) ?? nil else { return }
        try confirmed { try ledger.saveSnapshot(site: site, json: Self.json(s)) }
    }

    /// Runs one call on the cluster connection; when it succeeds, the server heard the connection
    /// when the call was sent, so its locks are held at least a lease from then: the lease is renewed.
    private func confirmed<T>(_ call: () throws -> T) throws -> T {
        let sent = ServiceClock.monotonicNow()
        let value = try call()
        lease.renew(sentAt: sent)
        return value
    }

    static func json(_ s: LearnerSnapshot) -> String {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return (try? encoder.encode(s)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Runs `body` on the loop and returns its value; nil when the loop does not answer within the
    /// takeover bound (it has ended).
    private func onLoop<T>(_ body: @escaping @Sendable (ServiceLoop) -> T) -> T? {
        let box = ClusterBox<T>()
        let done = DispatchSemaphore(value: 0)
        loop.submit { l in box.value = body(l); done.signal() }
        guard done.wait(timeout: .now() + max(5, timing.takeover)) == .success else { return nil }
        return box.value
    }
}

/// Carries a value from the loop thread to the coordinator blocked on a semaphore (which orders the
/// write before the read; that is why it may be `@unchecked Sendable`).
private final class ClusterBox<T>: @unchecked Sendable { var value: T? }
