#if canImport(Glibc)
import Glibc
#endif

/// Who may connect, and what a failed authentication costs: the connection limits (per port and per
/// address), the authentication back-off per address, and the rate-limited log lines of refusals and
/// failures. Every transport that accepts connections asks it before keeping one, and reports each
/// `auth` line's outcome to it.
///
/// Touched only on the loop thread.
final class ConnectionGate {
    /// The ports, for the limits, the back-off keys and the messages.
    enum Port: String {
        case ingest, feed
    }

    private let config: ServiceConfig
    private let logger: Logger
    private let counters: ServiceCounters
    /// Failed authentications per address and the wait they earned.
    private var backoff = AuthBackoff()
    /// Open connections per IP address, on each port (separate budgets: gateways from an address
    /// cannot lock its dashboards and `sextant status` out of the feed port, nor the reverse).
    private var byAddress: [Port: [String: Int]] = [:]
    /// When a refusal and a failure were last logged, and how many were not logged since.
    private var lastRefusalLog: Int64 = 0
    private var refusalsNotLogged = 0
    private var lastAuthFailureLog: Int64 = 0
    private var authFailuresNotLogged = 0

    init(config: ServiceConfig, logger: Logger, counters: ServiceCounters) {
        self.config = config
        self.logger = logger
        self.counters = counters
    }

    /// Why a new connection from `peer` to `port` is refused (the line it is sent, without `# error: `),
    /// or nil when it is admitted; a refusal is counted and logged.
    /// - Parameter open: the connections open on the port now.
    func refusal(port: Port, peer: String, open: Int) -> String? {
        let address = Self.address(of: peer)
        if let wait = backoff.remaining("\(port.rawValue) \(address)", now: ServiceClock.monotonicNow()) {
            let seconds = (wait + 999_999_999) / 1_000_000_000
            counters.stats.authBackoffRefused += 1
            logRefusal(port: port, peer: peer, reason: "authentication back-off (\(seconds) s)")
            return "too many failed authentications from \(address); retry in \(seconds) s"
        }
        let limit = port == .ingest ? config.maxIngestConnections : config.maxFeedClients
        var refusal: String?
        if open >= limit {
            refusal = "the \(port.rawValue) port has its maximum of \(limit) connections; try later"
        } else if byAddress[port]?[address, default: 0] ?? 0 >= config.maxConnectionsPerAddress {
            refusal = "\(address) has its maximum of \(config.maxConnectionsPerAddress) connections to the \(port.rawValue) port; try later"
        }
        if let refusal {
            counters.stats.connectionsRefused += 1
            logRefusal(port: port, peer: peer, reason: refusal)
        }
        return refusal
    }

    /// Counts an admitted connection in its address's budget.
    func opened(port: Port, peer: String) {
        byAddress[port, default: [:]][Self.address(of: peer), default: 0] += 1
    }

    /// Forgets a closed connection in its address's budget.
    func released(port: Port, peer: String) {
        let address = Self.address(of: peer)
        guard let n = byAddress[port]?[address] else { return }
        byAddress[port]?[address] = n > 1 ? n - 1 : nil
    }

    /// A client authenticated: its address's failures are forgotten.
    func authenticated(port: Port, peer: String) {
        backoff.succeeded("\(port.rawValue) \(Self.address(of: peer))")
    }

    /// Counts a failed authentication (verdict nil: the deadline passed), adds it to the address's
    /// back-off, and logs it, at most once a second (a flood of wrong tokens must not flood the log).
    func authenticationFailed(port: Port, peer: String, verdict: AccessList.Verdict?) {
        counters.stats.authFailures += 1
        let now = ServiceClock.monotonicNow()
        let wait = backoff.failed("\(port.rawValue) \(Self.address(of: peer))", now: now)
        guard now - lastAuthFailureLog >= 1_000_000_000 else {
            authFailuresNotLogged += 1
            return
        }
        logger.warning("authentication failed", ["port": port.rawValue, "peer": peer,
                                                 "reason": Self.message(for: verdict),
                                                 "backoff_s": wait.map { Double($0) * 1e-9 } ?? 0,
                                                 "not_logged_since_last": authFailuresNotLogged])
        lastAuthFailureLog = now
        authFailuresNotLogged = 0
    }

    /// Once a second: forgets addresses whose failures are old.
    func everySecond(now: Int64) {
        backoff.forgetOld(now: now)
    }

    /// Logs that accept ran out of descriptors, at most once a second (shares the refusals' budget).
    func logOutOfDescriptors(port: Port, openConnections: Int) {
        let now = ServiceClock.monotonicNow()
        guard now - lastRefusalLog >= 1_000_000_000 else { return }
        logger.warning("out of file descriptors: not accepting for 0.1 s", ["port": port.rawValue,
                                                                             "open_connections": openConnections])
        lastRefusalLog = now
    }

    /// The address part of `address:port`.
    static func address(of peer: String) -> String {
        peer.lastIndex(of: ":").map { String(peer[..<$0]) } ?? peer
    }

    /// What a client reads when its first line does not let it in (verdict nil: it sent none in time).
    static func message(for verdict: AccessList.Verdict?) -> String {
        switch verdict {
        case .accepted: "authenticated"
        case .notAnAuthLine: "authentication required: send 'auth TOKEN' as the first line"
        case .unknownSecret: "authentication failed: unknown token"
        case nil: "authentication timed out: send 'auth TOKEN' as the first line"
        }
    }

    /// Logs a refused connection, at most once a second (a flood of connections must not flood the log).
    private func logRefusal(port: Port, peer: String, reason: String) {
        let now = ServiceClock.monotonicNow()
        guard now - lastRefusalLog >= 1_000_000_000 else {
            refusalsNotLogged += 1
            return
        }
        logger.warning("connection refused", ["port": port.rawValue, "peer": peer, "reason": reason,
                                              "not_logged_since_last": refusalsNotLogged])
        lastRefusalLog = now
        refusalsNotLogged = 0
    }
}
