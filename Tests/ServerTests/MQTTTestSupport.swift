import Foundation
import Testing
import CMosquitto
import SextantTestSupport
@testable import Server

/// The broker `scripts/with-services` started (`SEXTANT_TEST_MQTT=127.0.0.1:PORT`). A test that needs it
/// fails, with what to do, when it is absent or unreachable.
func testBroker() throws -> (host: String, port: Int) {
    guard let v = ProcessInfo.processInfo.environment["SEXTANT_TEST_MQTT"], let b = MQTTConfig.parseBroker(v) else {
        throw MQTTTestError("SEXTANT_TEST_MQTT is not set: run the tests through scripts/with-services (scripts/test does)")
    }
    guard (try? Socket.connect(host: b.host, port: UInt16(b.port))) != nil else {
        throw MQTTTestError("no broker answers at \(v) (SEXTANT_TEST_MQTT): run the tests through scripts/with-services")
    }
    return (b.host, b.port)
}

struct MQTTTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A prefix no other test uses, so tests share the broker without seeing each other's messages.
func uniquePrefix() -> String { "t\(UUID().uuidString.prefix(8).lowercased())" }

/// The MQTT settings of a test service on `broker` with `prefix`.
func mqttConfig(_ broker: (host: String, port: Int), prefix: String, instance: String = "test") -> MQTTConfig {
    var m = MQTTConfig()
    m.host = broker.host
    m.port = broker.port
    m.prefix = prefix
    m.instance = instance
    m.clientID = "\(prefix)-\(instance)"
    m.reconnectMaxDelay = 0.25
    return m
}

/// A private mosquitto (the binary of `SEXTANT_TEST_MOSQUITTO`) on a port of its own, that a test stops
/// and starts again on the same port.
final class PrivateBroker {
    let port: Int
    private let directory: String
    private var process: Process?

    init() throws {
        guard let binary = ProcessInfo.processInfo.environment["SEXTANT_TEST_MOSQUITTO"] else {
            throw MQTTTestError("SEXTANT_TEST_MOSQUITTO is not set: run the tests through scripts/with-services (scripts/test does)")
        }
        let probe = try Socket.listen(host: "127.0.0.1", port: 0)
        port = Int(try probe.localPort())
        probe.close()
        directory = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var conf = "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 0\n"
        conf += "log_dest file \(directory)/mosquitto.log\nlog_dest stderr\n"
        if getuid() == 0 { conf += "user root\n" }
        try conf.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        self.binary = binary
        try start()
    }

    private let binary: String

    /// Starts the broker and waits until it logs that it listens (at most 10 s). Its log goes to the
    /// file and to a pipe that a thread reads until the broker exits, so the broker never blocks on it.
    func start() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["-c", directory + "/mosquitto.conf"]
        p.standardOutput = FileHandle.nullDevice
        let pipe = Pipe()
        p.standardError = pipe
        let listening = DispatchSemaphore(value: 0)
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread {
            var seen = "", signalled = false
            while true {
                let data = reader.availableData  // blocks until the broker writes or exits
                if data.isEmpty { break }
                guard !signalled else { continue }
                seen += String(decoding: data, as: UTF8.self)
                if seen.contains(" running") { signalled = true; listening.signal() }  // "mosquitto version … running": listening
            }
        }
        try p.run()
        process = p
        guard listening.wait(timeout: .now() + 10) == .success else {
            throw MQTTTestError("the private mosquitto did not start on port \(port)")
        }
    }

    /// Kills the broker (SIGKILL: the test process's threads block SIGTERM, which a child inherits)
    /// and waits for it to exit.
    func stop() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A plain MQTT client for the tests, driven on the calling thread (`mosquitto_loop`): publishes,
/// subscribes and collects what arrives.
final class TestMQTTClient {
    struct Message {
        var topic: String
        var payload: [UInt8]
        var retained: Bool
        var text: String { String(decoding: payload, as: UTF8.self) }
    }

    private let handle: OpaquePointer
    private(set) var messages: [Message] = []
    private var connected = false
    private var acknowledged = 0
    private var subscribed = 0

    /// Connects (MQTT 3.1.1 by default) and waits for the broker's answer.
    init(_ broker: (host: String, port: Int), id: String = "test-\(UUID().uuidString.prefix(8))", v5: Bool = false) throws {
        mosquitto_lib_init()
        guard let h = mosquitto_new(id, true, nil) else { throw MQTTTestError("mosquitto_new failed") }
        handle = h
        mosquitto_user_data_set(h, Unmanaged.passUnretained(self).toOpaque())
        if v5 { mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5) }
        mosquitto_connect_callback_set(h) { _, obj, rc in
            if rc == 0 { Unmanaged<TestMQTTClient>.fromOpaque(obj!).takeUnretainedValue().connected = true }
        }
        mosquitto_publish_callback_set(h) { _, obj, _ in Unmanaged<TestMQTTClient>.fromOpaque(obj!).takeUnretainedValue().acknowledged += 1 }
        mosquitto_subscribe_callback_set(h) { _, obj, _, _, _ in Unmanaged<TestMQTTClient>.fromOpaque(obj!).takeUnretainedValue().subscribed += 1 }
        mosquitto_message_callback_set(h) { _, obj, m in
            guard let m = m?.pointee else { return }
            let c = Unmanaged<TestMQTTClient>.fromOpaque(obj!).takeUnretainedValue()
            let payload = m.payloadlen > 0 ? Array(UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen))) : []
            c.messages.append(Message(topic: String(cString: m.topic), payload: payload, retained: m.retain))
        }
        let rc = mosquitto_connect(h, broker.host, Int32(broker.port), 30)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTTestError("cannot connect to the broker: \(MQTTError.describe(rc))") }
        guard pump(timeout: 10, until: { $0.connected }) else { throw MQTTTestError("the broker did not accept the test client") }
    }

    deinit {
        mosquitto_disconnect(handle)
        mosquitto_destroy(handle)
    }

    /// Subscribes and waits for the broker's acknowledgement.
    func subscribe(_ pattern: String, qos: Int32 = 1) throws {
        let before = subscribed
        mosquitto_subscribe(handle, nil, pattern, qos)
        guard pump(timeout: 10, until: { $0.subscribed > before }) else { throw MQTTTestError("no SUBACK for \(pattern)") }
    }

    /// Publishes and, for QoS 1, waits for the broker's acknowledgement.
    func publish(_ topic: String, _ payload: [UInt8], qos: Int32 = 1, retain: Bool = false) throws {
        let before = acknowledged
        let rc = payload.withUnsafeBytes { mosquitto_publish(handle, nil, topic, Int32($0.count), $0.baseAddress, qos, retain) }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTTestError("publish failed: \(MQTTError.describe(rc))") }
        guard pump(timeout: 30, until: { $0.acknowledged > before }) else { throw MQTTTestError("no PUBACK on \(topic)") }
    }

    /// Runs the network loop until `condition` holds or `timeout` seconds passed. - Returns: whether it held.
    @discardableResult
    func pump(timeout: Double, until condition: (TestMQTTClient) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while !condition(self) {
            guard Date() < end else { return false }
            mosquitto_loop(handle, 10, 1)
        }
        return true
    }

    /// Waits until a message on a topic matching `pattern` satisfies `accept`; returns it.
    func waitForMessage(_ timeout: Double = 10, _ accept: (Message) -> Bool) -> Message? {
        var found: Message?
        pump(timeout: timeout) { c in
            found = c.messages.first(where: accept)
            return found != nil
        }
        return found
    }
}

/// The demo lines cut into messages of `linesPerMessage` lines.
func messages(of lines: [UInt8], linesPerMessage: Int) -> [[UInt8]] {
    var out: [[UInt8]] = []
    var current: [UInt8] = []
    var n = 0
    for b in lines {
        current.append(b)
        if b == 10 {
            n += 1
            if n == linesPerMessage { out.append(current); current = []; n = 0 }
        }
    }
    if !current.isEmpty { out.append(current) }
    return out
}
