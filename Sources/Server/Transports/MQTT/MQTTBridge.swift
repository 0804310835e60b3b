import Foundation
import CMosquitto

/// MQTT in and out for one service: an ingest client subscribed (QoS 1, persistent session) to
/// `<prefix>/+/ingest`, whose messages reach the loop through a bounded inbox; and an output client
/// whose thread encodes and writes the outputs that the hub's publisher hands it, which also carries the instance's status (retained,
/// last will `offline`) and the rejection reports. Each client runs its own thread.
///
/// Two clients rather than one: the ingest client blocks while the inbox is full (back-pressure on
/// the broker), which must not hold up outputs; and the ingest client's id names the broker session
/// that queues messages while Sextant is away.
///
/// Threading invariant: `inClient`, `outClient`, `inbox` and `publisher` are thread-safe (the
/// publisher hands outputs from the loop to the output client's thread); the counters under `lock`
/// are written on the ingest client's thread. That is why the class may be `@unchecked Sendable`.
final class MQTTBridge: @unchecked Sendable {
    let config: MQTTConfig
    let logger: Logger
    let inClient: MQTTClient
    let outClient: MQTTClient
    let inbox: MQTTInbox
    /// Loop: the hub observer that publishes outputs.
    let publisher: MQTTPublisher
    /// Ingest-client thread: counters, under `lock`.
    private let lock = NSLock()
    private var _tooLarge = 0
    private var _retained = 0
    /// The broker acknowledged the ingest subscription on the current connection.
    private var _subscribed = false
    private var lastTooLargeLog: Int64 = 0
    private var lastProblemLog: [String: Int64] = [:]

    /// - Parameters:
    ///   - config: the broker, topics and limits.
    ///   - schedule: called (on the ingest client's thread) when the inbox gets a message after being
    ///     empty; submits a drain to the loop.
    init(config: MQTTConfig, logger: Logger, schedule: @escaping @Sendable () -> Void) throws(MQTTError) {
        self.config = config
        self.logger = logger
        let base = config.clientOptions(clientID: config.effectiveClientID + "-in")
        var ingest = base
        ingest.cleanSession = false
        ingest.sessionExpiry = UInt32(config.sessionExpiry)
        var output = base
        output.clientID = config.effectiveClientID + "-out"
        output.will = (MQTTTopic.status(prefix: config.prefix, instance: config.instance), "offline")
        inClient = try MQTTClient(ingest)
        outClient = try MQTTClient(output, ownLoop: true)
        inbox = MQTTInbox(limit: config.maxInboxBytes, schedule: schedule)
        publisher = MQTTPublisher(client: outClient, config: config, logger: logger)
    }

    /// The status topic, `<prefix>/status/<instance>`.
    var statusTopic: String { MQTTTopic.status(prefix: config.prefix, instance: config.instance) }

    /// Starts both clients' threads (they connect, and keep reconnecting with back-off).
    /// - Parameter ingest: false in cluster mode, where each owned site has an ingest client of its own.
    func start(ingest: Bool = true) {
        let status = statusTopic
        outClient.start(name: "sextant.mqtt-out", handlers: .init(
            connected: { [logger, config] c in
                logger.info("MQTT out connected", ["broker": "\(config.host):\(config.port)", "status": status])
                Self.publish(c, status, "online", qos: 1, retain: true)
            },
            problem: { [weak self] in self?.problem("out", $0) },
            work: { [weak publisher] in publisher?.drain() }))
        guard ingest else { return }
        let pattern = MQTTTopic.ingestPattern(prefix: config.prefix)
        inClient.start(name: "sextant.mqtt-in", handlers: .init(
            connected: { [weak self, logger, config] c in
                self?.setSubscribed(false)
                c.subscribe(pattern, qos: 1)
                logger.info("MQTT in connected", ["broker": "\(config.host):\(config.port)", "subscribed": pattern,
                                                 "client_id": c.options.clientID])
            },
            message: { [weak self] topic, payload, _, retained in self?.received(topic, payload, retained: retained) },
            problem: { [weak self] in self?.problem("in", $0) },
            subscribed: { [weak self] _ in self?.setSubscribed(true) }))
    }

    /// Stops reading ingest messages: the ingest client disconnects cleanly (its broker session stays,
    /// so messages published meanwhile wait there). What was received is already in the inbox, whose
    /// drain the loop runs before a later stop command.
    func stopIngest() {
        inClient.stop(flush: 0)
    }

    /// After the loop has ended: publishes `offline` on the status topic, lets queued outputs go out
    /// (at most a second) and disconnects.
    func stopOutput() {
        inbox.close()
        Self.publish(outClient, statusTopic, "offline", qos: 1, retain: true)
        outClient.stop(flush: 1)
    }

    /// The counters of the clients and the publisher (on the loop thread; `MQTTIngest` adds its own).
    func stats() -> MQTTStats {
        var s = MQTTStats()
        let subscribed = lock.withLock { _subscribed }
        s.inConnected = inClient.isConnected && subscribed ? 1 : 0
        s.outConnected = outClient.isConnected ? 1 : 0
        let a = inClient.counts, b = outClient.counts
        s.connects = a.connects + b.connects
        s.connectionsLost = a.losses + b.losses
        lock.withLock {
            s.messagesTooLarge = _tooLarge
            s.messagesRetainedIgnored = _retained
        }
        s.outPublished = publisher.published
        s.outDropped = publisher.dropped
        s.inboxWaits = inbox.waits
        return s
    }

    /// Publishes a text on the output connection (any thread); the result is only logged by the caller.
    @discardableResult
    static func publish(_ client: MQTTClient, _ topic: String, _ text: String, qos: Int32 = 0, retain: Bool = false) -> Int32 {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { b in
            topic.withCString { client.publish(topic: $0, payload: UnsafeRawBufferPointer(b), qos: qos, retain: retain) }
        }
    }

    // MARK: the ingest client's thread

    func received(_ topic: UnsafePointer<CChar>, _ payload: UnsafeRawBufferPointer, retained: Bool) {
        let name = String(cString: topic)
        guard let site = MQTTTopic.site(ofIngest: name, prefix: config.prefix) else { return }
        if retained {
            // A retained ingest message is sent again at every subscription: applying it would replay it.
            let log = lock.withLock { () -> Bool in _retained += 1; return _retained == 1 }
            if log {
                logger.warning("MQTT in: retained ingest message ignored; gateways must publish without retain",
                               ["topic": name, "bytes": payload.count])
            }
            return
        }
        guard payload.count <= config.maxMessageBytes else {
            let now = ServiceClock.monotonicNow()
            let (log, total) = lock.withLock { () -> (Bool, Int) in
                _tooLarge += 1
                let log = now - lastTooLargeLog >= 1_000_000_000
                if log { lastTooLargeLog = now }
                return (log, _tooLarge)
            }
            if log {
                logger.warning("MQTT in: message larger than maxMessageBytes dropped", ["topic": name, "bytes": payload.count,
                               "limit": config.maxMessageBytes, "dropped_total": total])
            }
            Self.publish(outClient, MQTTTopic.rejected(prefix: config.prefix, site: site),
                         "# rejected message of \(payload.count) bytes: larger than maxMessageBytes (\(config.maxMessageBytes)) [message_too_large]\n")
            return
        }
        inbox.push(MQTTInbox.Message(site: site, payload: Array(payload)))
    }

    /// The ingest subscription was sent (false) or acknowledged (true) on the current connection.
    private func setSubscribed(_ on: Bool) {
        lock.withLock { _subscribed = on }
    }

    /// Logs a connection problem of one client, at most once every 10 s per client (a broker away
    /// for an hour must not fill the log with one line per attempt).
    private func problem(_ client: String, _ message: String) {
        let now = ServiceClock.monotonicNow()
        let log = lock.withLock { () -> Bool in
            guard now - (lastProblemLog[client] ?? .min / 2) >= 10_000_000_000 else { return false }
            lastProblemLog[client] = now
            return true
        }
        if log { logger.warning("MQTT \(client): \(message)", ["client_id": config.effectiveClientID + "-" + client]) }
    }
}
