import CMosquitto
import Positioning
import Wire

/// MQTT out: every output of the hub as one message on `<prefix>/<site>/tags/<tag>/<kind>` for each
/// output prefix, in its format; positions retained (a removed tag's retained position is cleared).
///
/// Bounded: when `maxQueued` messages wait for the broker (slow, or away: libmosquitto keeps QoS 1
/// messages while disconnected), further outputs are dropped and counted rather than queued, and the
/// loop never waits. Touched only on the loop thread (it is a hub observer).
final class MQTTPublisher: FeedOutputObserver {
    private let client: MQTTClient
    private let outputs: [MQTTConfig.Output]
    private let qos: Int32
    private let maxQueued: Int
    private let logger: Logger
    /// `<prefix>/<site>/tags/<tag>/` of each output prefix, per tag (cleared when it grows past `maxTopics`).
    private var topics: [TagKey: [String]] = [:]
    private static let maxTopics = 200_000
    private var scratch: [UInt8] = []
    /// Messages handed to libmosquitto, and outputs not sent (queue full or broker away).
    private(set) var published = 0
    private(set) var dropped = 0
    private var lastDropLog: Int64 = 0
    private var droppedNotLogged = 0

    init(client: MQTTClient, config: MQTTConfig, logger: Logger) {
        self.client = client
        outputs = config.effectiveOutputs
        qos = Int32(config.outputQoS)
        maxQueued = config.maxQueuedMessages
        self.logger = logger
        scratch.reserveCapacity(512)
    }

    func observe(_ output: Output) {
        let site: String, tag: String, kind: String
        switch output {
        case .position(let p): site = p.site; tag = p.tag; kind = "position"
        case .proximity(let s, let t, _, _, _, _): site = s; tag = t; kind = "proximity"
        case .removed(let s, let t, _, _): site = s; tag = t; kind = "removed"
        case .zone(let s, let t, _, _, _): site = s; tag = t; kind = "zone"
        }
        guard client.outstanding < maxQueued else {
            drop(outputs.count, reason: client.isConnected ? "the broker is slow: maxQueuedMessages waiting" : "not connected to the broker")
            return
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
            let topic = bases[i] + kind
            send(topic, retain: kind == "position")
            if kind == "removed" {
                // The tag is gone: its retained position would greet new subscribers with a stale place.
                scratch.removeAll(keepingCapacity: true)
                send(bases[i] + "position", retain: true)
            }
        }
    }

    private func send(_ topic: String, retain: Bool) {
        let rc = scratch.withUnsafeBytes { bytes in
            topic.withCString { client.publish(topic: $0, payload: bytes, qos: qos, retain: retain) }
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue { published += 1 } else {
            drop(1, reason: rc == MOSQ_ERR_NO_CONN.rawValue ? "not connected to the broker" : MQTTError.describe(rc))
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

    /// Counts dropped outputs and logs it, at most once a second.
    private func drop(_ n: Int, reason: String) {
        dropped += n
        let now = ServiceClock.monotonicNow()
        guard now - lastDropLog >= 1_000_000_000 else { droppedNotLogged += n; return }
        logger.warning("MQTT out: outputs dropped", ["reason": reason, "dropped": n + droppedNotLogged,
                                                    "dropped_total": dropped])
        lastDropLog = now
        droppedNotLogged = 0
    }
}
