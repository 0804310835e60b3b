public import CMosquitto
import Foundation

/// A libmosquitto client on its own network thread (`mosquitto_loop_start`), for the benchmarks' load:
/// publishers and subscribers that count acknowledgements and messages. Not for the service itself,
/// which drives its clients' network loops (`MQTTClient`).
public final class BenchMQTTClient: @unchecked Sendable {
    private let handle: OpaquePointer
    private let lock = NSLock()
    private var acked = 0, received = 0, connected = false
    /// Called on the client's thread for each message, with its receive time (wall clock, ns).
    private let onMessage: ((UnsafePointer<mosquitto_message>, Int64) -> Void)?

    /// Connects (clean session, up to 1,000 messages in flight, TCP_NODELAY) and waits up to 10 s for
    /// the broker's answer.
    public init(_ id: String, host: String, port: Int,
                onMessage: ((UnsafePointer<mosquitto_message>, _ receivedNs: Int64) -> Void)? = nil) {
        mosquitto_lib_init()
        handle = mosquitto_new(id, true, nil)!
        self.onMessage = onMessage
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_max_inflight_messages_set(handle, 1000)
        mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_connect_callback_set(handle) { _, o, _ in
            let c = BenchMQTTClient.from(o)
            c.lock.withLock { c.connected = true }
        }
        mosquitto_publish_callback_set(handle) { _, o, _ in
            let c = BenchMQTTClient.from(o)
            c.lock.withLock { c.acked += 1 }
        }
        mosquitto_message_callback_set(handle) { _, o, m in
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let c = BenchMQTTClient.from(o)
            c.lock.withLock { c.received += 1 }
            if let m { c.onMessage?(m, Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)) }
        }
        mosquitto_connect(handle, host, Int32(port), 60)
        mosquitto_loop_start(handle)
        let end = Date().addingTimeInterval(10)
        while !lock.withLock({ connected }) && Date() < end { usleep(1000) }
    }

    private static func from(_ o: UnsafeMutableRawPointer?) -> BenchMQTTClient {
        Unmanaged<BenchMQTTClient>.fromOpaque(o!).takeUnretainedValue()
    }

    deinit {
        mosquitto_disconnect(handle)
        mosquitto_loop_stop(handle, false)
        mosquitto_destroy(handle)
    }

    /// Whether the broker accepted the connection.
    public var isConnected: Bool { lock.withLock { connected } }

    /// Subscribes with QoS 1, then gives the broker `settle` seconds to set it up.
    public func subscribe(_ pattern: String, settle: Double = 0.2) {
        mosquitto_subscribe(handle, nil, pattern, 1)
        usleep(UInt32(settle * 1e6))
    }

    /// Queues one message (QoS 1 unless told otherwise).
    public func publish(_ topic: String, _ payload: [UInt8], qos: Int32 = 1) {
        payload.withUnsafeBytes { _ = mosquitto_publish(handle, nil, topic, Int32($0.count), $0.baseAddress, qos, false) }
    }

    /// Messages acknowledged by the broker (QoS 1) or written (QoS 0), and messages received.
    public var counts: (acked: Int, received: Int) { lock.withLock { (acked, received) } }

    /// Waits until `n` messages were acknowledged.
    public func waitAcked(_ n: Int) { while counts.acked < n { usleep(500) } }
}
