import Foundation
import CMosquitto
import Positioning
import Wire

/// MQTT out: every output of the hub as one message on `<prefix>/<site>/tags/<tag>/<kind>` for each
/// output prefix, in its format; positions retained (a removed tag's retained position is cleared).
///
/// The loop only hands outputs over: `observe` (a hub observer, on the loop thread) appends the output
/// to `pending` and wakes the output client's thread when `pending` was empty; that thread (`drain`,
/// the client's `work` handler) takes everything pending, encodes it and queues the messages with the
/// socket corked, so a turn's messages leave in a few segments instead of one `send` each.
///
/// Bounded: when `maxQueued` messages wait (handed over, or queued in libmosquitto for a slow broker or,
/// at QoS 1, while disconnected), further outputs are dropped and counted rather than queued, and the
/// loop never waits; at QoS 0 outputs are dropped while the client is not connected.
///
/// Threading invariant: `pending`, the counters and the drop log's state are guarded by `lock`;
/// `topics` and `scratch` are touched only on the output client's thread (in `drain`). That is why
/// the class may be `@unchecked Sendable`.
final class MQTTPublisher: FeedOutputObserver, @unchecked Sendable {
    private let client: MQTTClient
    private let outputs: [MQTTConfig.Output]
    private let qos: Int32
    private let maxQueued: Int
    private let logger: Logger
    private let lock = NSLock()
    /// Loop → output thread: outputs handed over and not yet taken (under `lock`).
    private var pending: [Output] = []
    /// Messages handed to libmosquitto, and outputs not sent (under `lock`).
    private var _published = 0
    private var _dropped = 0
    private var lastDropLog: Int64 = 0
    private var droppedNotLogged = 0
    /// Output thread: `<prefix>/<site>/tags/<tag>/` of each output prefix, per tag (cleared when it
    /// grows past `maxTopics`), and the encoding buffer.
    private var topics: [TagKey: [String]] = [:]
    private static let maxTopics = 200_000
    private var scratch: [UInt8] = []

    init(client: MQTTClient, config: MQTTConfig, logger: Logger) {
        self.client = client
        outputs = config.effectiveOutputs
        qos = Int32(config.outputQoS)
        maxQueued = config.maxQueuedMessages
        self.logger = logger
        scratch.reserveCapacity(512)
    }

    /// Messages handed to libmosquitto, and outputs not sent (queue full or broker away). Any thread.
    var published: Int { lock.withLock { _published } }
    var dropped: Int { lock.withLock { _dropped } }

    // MARK: the loop thread

    func observe(_ output: Output) {
        let state = client.state
        if qos == 0 && !state.connected {
            drop(outputs.count, reason: "not connected to the broker")
            return
        }
        let wake: Bool? = lock.withLock {
            guard pending.count + state.outstanding < maxQueued else { return nil }
            pending.append(output)
            return pending.count == 1
        }
        guard let wake else {
            drop(outputs.count, reason: state.connected ? "the broker is slow: maxQueuedMessages waiting" : "not connected to the broker")
            return
        }
        if wake { client.requestWork() }
    }

    // MARK: the output client's thread

    /// Publishes every output handed over (the output client's `work` handler).
    func drain() {
        var batch: [Output] = []
        lock.withLock { swap(&batch, &pending) }
        var sent = 0, notSent = 0
        var failure: Int32 = 0
        for output in batch {
            let site: String, tag: String, kind: String
            switch output {
            case .position(let p): site = p.site; tag = p.tag; kind = "position"
            case .proximity(let s, let t, _, _, _, _): site = s; tag = t; kind = "proximity"
            case .removed(let s, let t, _, _): site = s; tag = t; kind = "removed"
            case .zone(let s, let t, _, _, _): site = s; tag = t; kind = "zone"
            }
            let bases = base(site: site, tag: tag)
            for (i, o) in outputs.enumerated() {
                scratch.removeAll(keepingCapacity: true)
                let encoded: Bool
                switch o.format {
                case .json: encoded = OutputJSON.append(output, to: &scratch)
                case .lineProtocol:
                    encoded = OutputEncoder.append(output, to: &scratch)
                    if scratch.last == 10 { scratch.removeLast() }
                }
                guard encoded else { continue }
                let rc = send(bases[i] + kind, retain: kind == "position")
                guard rc == MOSQ_ERR_SUCCESS.rawValue else { notSent += 1; failure = rc; continue }
                sent += 1
                if kind == "removed" {
                    // The tag is gone: its retained position would greet new subscribers with a stale place.
                    scratch.removeAll(keepingCapacity: true)
                    if send(bases[i] + "position", retain: true) == MOSQ_ERR_SUCCESS.rawValue { sent += 1 }
                }
            }
        }
        lock.withLock { _published += sent }
        if notSent > 0 {
            drop(notSent, reason: failure == MOSQ_ERR_NO_CONN.rawValue ? "not connected to the broker" : MQTTError.describe(failure))
        }
    }

    private func send(_ topic: String, retain: Bool) -> Int32 {
        scratch.withUnsafeBytes { bytes in
            topic.withCString { client.publishOnClientThread(topic: $0, payload: bytes, qos: qos, retain: retain) }
        }
    }

    private func base(site: String, tag: String) -> [String] {
        let key = TagKey(site: site, tag: tag)
        if let b = topics[key] { return b }
        if topics.count >= Self.maxTopics { topics.removeAll(keepingCapacity: true) }
        let b = outputs.map { MQTTTopic.tagBase(prefix: $0.prefix, site: site, tag: tag) }
        topics[key] = b
        return b
    }

    // MARK: either thread

    /// Counts dropped outputs and logs it, at most once a second.
    private func drop(_ n: Int, reason: String) {
        let now = ServiceClock.monotonicNow()
        let log: (Int, Int)? = lock.withLock {
            _dropped += n
            guard now - lastDropLog >= 1_000_000_000 else { droppedNotLogged += n; return nil }
            defer { lastDropLog = now; droppedNotLogged = 0 }
            return (n + droppedNotLogged, _dropped)
        }
        if let (n, total) = log {
            logger.warning("MQTT out: outputs dropped", ["reason": reason, "dropped": n, "dropped_total": total])
        }
    }
}
