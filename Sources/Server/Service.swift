import Foundation
public import Store
public import Positioning

/// The live service: TCP ingest, the live feed and the history sink around one positioning engine,
/// all driven by one event-loop thread.
///
/// Lifecycle: `start()` binds the listeners and starts the loop; `shutdown()` stops accepting, commits
/// the history, closes every connection and waits for the loop to end. Both may be called from any
/// thread (not from the loop itself); `state` tells where the service is.
public final class Service: @unchecked Sendable {
    /// The event loop thread's name, as `top -H`, `ps -L` and `perf` show it.
    public static var loopThreadName: String { ServiceLoop.threadName }

    /// Where the service is in its life.
    public enum State: Sendable, Equatable {
        case initial, starting, running, shuttingDown, shutdown
    }

    public let config: ServiceConfig
    public let logger: Logger
    /// The sites served.
    public let sites: [Site]
    private let loop: ServiceLoop
    /// MQTT in and out (`config.mqtt`); nil when off.
    private let mqtt: MQTTBridge?
    /// Cluster mode's coordinator (`config.cluster`); nil when off.
    private let cluster: ClusterCoordinator?
    /// The HTTP port, when `config.http` is set; started with the loop, stopped before it.
    private let httpServer: HTTPServer?
    private let httpTransport: HTTPTransport?
    /// Applies retention to the history while the service runs; started by `start()`, stopped with the loop.
    private let retention: RetentionRunner?
    /// Guards `_state`, `_ports` and `thread`; the loop's own state is confined to the loop thread.
    private let lock = NSLock()
    private var _state = State.initial
    private var _ports: (ingest: UInt16, feed: UInt16) = (0, 0)
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - config: ports, limits, policies (the data directory is not used here; see `ServiceHost`).
    ///   - sites: the site maps to position.
    ///   - lastPositions: each tag's last known position, for the feed snapshot (from the store).
    ///   - history: where positions (and recorded lines) go; nil for none.
    ///   - retention: applied to the history while the service runs; nil for none.
    ///   - logger: structured log lines.
    public init(config: ServiceConfig, sites: [Site], lastPositions: [PositionEstimate] = [],
                history: (any HistorySink)? = nil, retention: RetentionRunner? = nil,
                historyReader: (any HistoryStorage)? = nil, clusterStore: (any HistoryStorage)? = nil,
                logger: Logger = Logger()) throws {
        self.config = config
        self.logger = logger
        self.sites = sites
        self.retention = retention
        let loop = try ServiceLoop(config: config, sites: sites, lastPositions: lastPositions, history: history,
                                   logger: logger)
        self.loop = loop
        if var m = config.mqtt {
            // Cluster mode: each instance's status topic and output client are its own.
            if let c = config.cluster, m.instance == MQTTConfig().instance { m.instance = c.instance }
            let bridge = try MQTTBridge(config: m, logger: logger) { [weak loop] in loop?.submit { $0.mqtt?.drainInbox() } }
            let transport = MQTTIngest(loop: loop, admission: loop.admission, bridge: bridge)
            loop.mqtt = transport
            loop.add(transport, tokens: [])
            // Without outputs (`outputs: []`) the publisher would look at every output for nothing.
            if !m.effectiveOutputs.isEmpty { loop.engine.hub.addObserver(bridge.publisher) }
            mqtt = bridge
        } else {
            mqtt = nil
        }
        cluster = Self.makeCluster(config: config, sites: sites, loop: loop, bridge: mqtt, store: clusterStore, logger: logger)
        httpServer = config.http.map { HTTPServer(endpoint: $0, heartbeat: config.httpHeartbeat, logger: logger) }
        if let httpServer {
            // Weak: the loop holds the transport, and the server (through its API) holds the loop.
            let transport = HTTPTransport(loop: loop, hub: loop.engine.hub, wake: { [weak httpServer] id in
                if let id { httpServer?.wake(stream: id) } else { httpServer?.wake() }
            })
            loop.add(transport, tokens: [])
            let api = HTTPAPI(loop: loop, transport: transport, tokens: config.feedTokens, reader: historyReader)
            api.server = httpServer
            httpServer.api = api
            httpTransport = transport
        } else {
            httpTransport = nil
        }
    }

    /// The current state.
    public var state: State { lock.withLock { _state } }
    /// The bound ingest port (the real one when the config asked for port 0); 0 before `start()`.
    public var ingestPort: UInt16 { lock.withLock { _ports.ingest } }
    /// The bound feed port; 0 before `start()`.
    public var feedPort: UInt16 { lock.withLock { _ports.feed } }
    /// The bound HTTP port; 0 before `start()` or when `config.http` is nil.
    public var httpPort: UInt16 { lock.withLock { _httpPort } }
    private var _httpPort: UInt16 = 0

    /// Binds both ports and starts the event-loop thread.
    /// - Throws: `SystemError` when a port cannot be bound (e.g. `EADDRINUSE`); the service is then shut down.
    public func start() throws {
        try lock.withLock {
            guard _state == .initial else { throw SystemError("start (service already started)", code: EINVAL) }
            _state = .starting
        }
        let ports: (UInt16, UInt16)
        do {
            ports = try loop.bind()
            try httpServer?.start()
        } catch {
            lock.withLock { _state = .shutdown }
            finished.signal()
            throw error
        }
        let loop = self.loop
        let retention = self.retention
        let mqtt = self.mqtt
        let thread = Thread { [self] in
            ThreadName.setCurrent(ServiceLoop.threadName)
            loop.run()
            // The ingest client may still be connected when the loop ended by itself (a poll error).
            self.cluster?.stop()
            mqtt?.stopIngest()
            mqtt?.stopOutput()
            retention?.stop()
            lock.withLock { _state = .shutdown }
            finished.signal()
        }
        thread.name = "sextant-loop"
        thread.stackSize = 1 << 22
        lock.withLock { _ports = ports; _httpPort = httpServer?.port ?? 0; _state = .running }
        logger.info("listening", ["bind": config.bindAddress, "ingest_port": ports.0, "feed_port": ports.1,
                                  "sites": sites.map(\.id).joined(separator: ","),
                                  "loopback_only": config.bindAddress.hasPrefix("127.") || config.bindAddress == "localhost",
                                  "ingest_tokens": config.ingestTokens.tokens.count,
                                  "feed_tokens": config.feedTokens.tokens.count])
        if !config.bindAddress.hasPrefix("127."), !config.ingestTokens.isRequired {
            logger.warning("listening beyond loopback without ingest tokens: anyone who can reach the port can write positions",
                           ["bind": config.bindAddress])
        }
        thread.start()
        if let mqtt {
            logger.info("MQTT on", ["broker": "\(mqtt.config.host):\(mqtt.config.port)", "protocol": mqtt.config.protocolVersion.rawValue,
                                    "tls": mqtt.config.caFile != nil, "ingest": MQTTTopic.ingestPattern(prefix: mqtt.config.prefix),
                                    "outputs": mqtt.config.effectiveOutputs.map { "\($0.prefix) (\($0.format.rawValue))" }.joined(separator: ", "),
                                    "status": mqtt.statusTopic])
            mqtt.start(ingest: cluster == nil)
        }
        if let httpServer {
            logger.info("http listening", ["http": HTTPEndpoint(host: httpServer.endpoint.host, port: httpServer.port).description,
                                           "feed_tokens": config.feedTokens.tokens.count])
            if !httpServer.endpoint.isLoopback, !config.feedTokens.isRequired {
                logger.warning("HTTP port beyond loopback without feed tokens: anyone who can reach it can read every site",
                               ["http": httpServer.endpoint.description])
            }
        }
        cluster?.start()
        if let retention {
            logger.info("retention on", ["full_rate_days": Double(retention.policy.fullRate) / 86_400e9,
                                         "keep_days": Double(retention.policy.keep) / 86_400e9,
                                         "interval_s": retention.interval])
            retention.start()
        }
    }

    /// The counters, read on the loop thread (so they include every line processed so far).
    /// After shutdown, the final counters.
    public func stats() -> ServiceStats {
        if state == .shutdown { return loop.stats() }
        let box = StatsBox()
        let done = DispatchSemaphore(value: 0)
        loop.submit { l in box.value = l.stats(); done.signal() }
        if done.wait(timeout: .now() + 5) == .timedOut { return ServiceStats() }
        return box.value
    }

    /// Blocks until `condition` holds for the counters, or `timeout` seconds pass. The loop checks it
    /// at the end of every turn (after each batch of events, and at least once a second), so a
    /// condition on lines processed holds as soon as they are, without polling.
    /// - Returns: the counters that met the condition; when the timeout passed first, the counters then.
    public func waitForStats(timeout: Double, until condition: @escaping @Sendable (ServiceStats) -> Bool) -> ServiceStats {
        guard state == .running else { return stats() }
        let watcher = StatsWatcher(condition)
        loop.submit { l in
            l.statsWatchers.append(watcher)
            l.checkWatchers()
        }
        if watcher.done.wait(timeout: .now() + timeout) == .success { return watcher.value }
        loop.submit { $0.removeWatcher(watcher) }
        return stats()
    }

    /// Puts site maps in place while running (on the loop thread; returns once they are): a changed
    /// map restarts its site's tracker, a new site is added, the same map changes nothing. The store
    /// is not written: the files are imported again at the next start.
    public func reload(sites files: [SiteFile]) {
        guard state == .running else { return }
        let done = DispatchSemaphore(value: 0)
        loop.submit { l in l.engine.reload(sites: files); done.signal() }
        _ = done.wait(timeout: .now() + 5)
    }

    /// The last known position of every tag (read on the loop thread).
    public func lastPositions() -> [PositionEstimate] {
        guard state == .running else { return [] }
        let box = PositionsBox()
        let done = DispatchSemaphore(value: 0)
        loop.submit { l in box.value = l.engine.hub.lastPositions.entries.values.map(\.estimate); done.signal() }
        _ = done.wait(timeout: .now() + 5)
        return box.value
    }

    /// Runs `body` on the loop thread and returns once it has run (tests reach the components so).
    func onLoop(_ body: @escaping @Sendable (ServiceLoop) -> Void) {
        guard state == .running else { return }
        let done = DispatchSemaphore(value: 0)
        loop.submit { l in body(l); done.signal() }
        _ = done.wait(timeout: .now() + 60)
    }

    /// Lines waiting in each feed client's queue (read on the loop thread): the queue limit at work.
    func feedQueuedLines() -> [Int] {
        guard state == .running else { return [] }
        let box = CountsBox()
        let done = DispatchSemaphore(value: 0)
        loop.submit { l in box.value = l.feed?.clients.values.map(\.queuedLines) ?? []; done.signal() }
        _ = done.wait(timeout: .now() + 60)
        return box.value
    }

    /// HTTP streams subscribed now (read on the loop thread).
    func httpStreams() -> Int {
        guard state == .running else { return 0 }
        let box = CountsBox()
        let done = DispatchSemaphore(value: 0)
        let transport = httpTransport
        loop.submit { _ in box.value = [transport?.streams.count ?? 0]; done.signal() }
        _ = done.wait(timeout: .now() + 5)
        return box.value.first ?? 0
    }

    /// Stops accepting, drops ingest connections, commits the history (`close()` on the sink), flushes
    /// and closes the feed clients, and waits until the loop thread has ended. Idempotent.
    public func shutdown() {
        let wasRunning: Bool = lock.withLock {
            switch _state {
            case .running:
                _state = .shuttingDown
                return true
            case .initial:
                _state = .shutdown
                finished.signal()
                return false
            default:
                return false
            }
        }
        if wasRunning {
            logger.info("shutting down")
            // Cluster mode: every site is handed over first (ingest stopped, state saved, lock freed).
            cluster?.stop()
            // MQTT in first: what the ingest client received is in the inbox, whose drain was submitted
            // before the stop below, so it is positioned (and its positions stored) before the loop ends.
            mqtt?.stopIngest()
            httpServer?.stop()
            loop.submit { $0.stop() }
        }
        waitUntilShutdown()
    }

    /// Blocks until the service has shut down (after `shutdown()`, from another thread).
    /// - Parameter timeout: seconds to wait at most; nil: no limit.
    /// - Returns: false when the timeout expired first.
    @discardableResult
    public func waitUntilShutdown(timeout: Double? = nil) -> Bool {
        if let timeout {
            guard finished.wait(timeout: .now() + timeout) == .success else { return false }
        } else {
            finished.wait()
        }
        finished.signal()   // let other waiters through
        return true
    }
}

/// Carries a value from the loop thread to a caller blocked on a semaphore (the semaphore orders the
/// write before the read, which is why it may be `@unchecked Sendable`).
private final class StatsBox: @unchecked Sendable { var value = ServiceStats() }
private final class PositionsBox: @unchecked Sendable { var value: [PositionEstimate] = [] }
private final class CountsBox: @unchecked Sendable { var value: [Int] = [] }
