import Foundation
import Glibc
import CMosquitto
import Store

/// One connection to an MQTT broker through libmosquitto: owns the `struct mosquitto*` (freed in
/// `deinit`), runs its network loop on a thread of its own, and reconnects with exponential back-off
/// when the broker goes away or refuses it.
///
/// Threading invariant: the handle is created in `init` and destroyed in `deinit`; between `start()`
/// and the end of `stop()` only the client's thread runs `mosquitto_loop` on it, and other threads call
/// only libmosquitto's thread-safe entry points (`mosquitto_publish`, `mosquitto_subscribe`: the handle
/// is marked threaded, so they queue the packet and wake the loop). The callbacks run on the client's
/// thread. A client made with `ownLoop` polls its socket itself (instead of `mosquitto_loop`), with a
/// wake-up pipe that `requestWork()` and publishes from other threads signal; there `handlers.work` runs on the
/// client's thread with the socket corked, so the packets it queues leave together. The mutable state shared with other threads (`connected`, `outstanding`, counters, the stop
/// request and its flush deadline) is guarded by `lock`. That is why the class may be `@unchecked Sendable`.
final class MQTTClient: @unchecked Sendable {
    /// What to connect to and how.
    struct Options: Sendable {
        var host = "127.0.0.1"
        var port: Int32 = 1883
        var clientID: String
        /// MQTT 5 (default) or 3.1.1.
        var protocolVersion: MQTTConfig.ProtocolVersion = .v5
        /// False: a persistent session (MQTT 3.1.1 clean session false; MQTT 5 clean start false with
        /// `sessionExpiry`), so the broker keeps subscriptions and queued QoS 1 messages across a restart.
        var cleanSession = true
        /// MQTT 5: seconds the broker keeps the session after a disconnect (ignored for 3.1.1, where
        /// the broker's own `persistent_client_expiration` applies).
        var sessionExpiry: UInt32 = 0
        /// Seconds between keep-alive pings.
        var keepAlive: Int32 = 30
        var username: String?
        var password: String?
        /// PEM file of the certificate authorities that sign the broker's certificate: TLS on.
        var caFile: String?
        /// Published by the broker when the connection dies without a DISCONNECT (retained, QoS 1).
        var will: (topic: String, payload: String)?
        /// Back-off between connection attempts: doubles from `reconnectDelay` up to `reconnectMaxDelay`, seconds.
        var reconnectDelay = 0.25
        var reconnectMaxDelay = 30.0
    }

    /// What the client tells its owner, on the client's thread.
    struct Handlers {
        /// The broker accepted the connection (subscribe here).
        var connected: (MQTTClient) -> Void = { _ in }
        /// A message arrived (topic, payload, QoS, retained). It may block to apply back-pressure: the
        /// client then reads nothing more from the broker until it returns.
        var message: (UnsafePointer<CChar>, UnsafeRawBufferPointer, Int32, Bool) -> Void = { _, _, _, _ in }
        /// The connection was lost, or an attempt failed, with a message for the log.
        var problem: (String) -> Void = { _ in }
        /// The broker acknowledged a subscription (SUBACK).
        var subscribed: (MQTTClient) -> Void = { _ in }
        /// `ownLoop` only: `requestWork()` was called. Publish with `publishOnClientThread`; the socket is
        /// corked meanwhile, and what was queued is written once it returns.
        var work: () -> Void = {}
    }

    let options: Options
    private let handle: OpaquePointer
    private var handlers = Handlers()
    private var connectProperties: OpaquePointer?
    private let lock = NSLock()
    private var _connected = false
    private var _outstanding = 0
    private var _connects = 0
    private var _losses = 0
    private var stopRequested = false
    /// Set once DISCONNECT is queued: a message read after it is not delivered, since its
    /// acknowledgement would follow the DISCONNECT and never reach the broker, which sends it again
    /// to the session's next connection.
    private var discarding = false
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?
    /// `ownLoop`: what wakes the client's `poll` (nil: `mosquitto_loop` polls).
    private let wakeUp: WakePipe?

    /// Creates the handle and applies the options (nothing is connected before `start`).
    /// - Parameter ownLoop: poll the socket with a wake-up pipe and run `handlers.work` when woken
    ///   (the output client), instead of libmosquitto's `mosquitto_loop`.
    /// - Throws: `MQTTError` when libmosquitto refuses an option (e.g. an unreadable CA file).
    init(_ options: Options, ownLoop: Bool = false) throws(MQTTError) {
        self.options = options
        do { wakeUp = ownLoop ? try WakePipe() : nil } catch {
            throw MQTTError(code: MOSQ_ERR_ERRNO.rawValue, context: "creating the wake-up pipe: \(error)")
        }
        MQTTClient.initialiseLibrary
        guard let h = mosquitto_new(options.clientID, options.cleanSession, nil) else {
            throw MQTTError(code: MOSQ_ERR_NOMEM.rawValue, context: "creating client '\(options.clientID)'")
        }
        handle = h
        mosquitto_user_data_set(h, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_threaded_set(h, true)
        let version = options.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, Int32(version)), "setting the protocol version")
        try check(mosquitto_int_option(h, MOSQ_OPT_TCP_NODELAY, 1), "setting TCP_NODELAY")
        if options.username != nil || options.password != nil {
            try check(mosquitto_username_pw_set(h, options.username, options.password), "setting username and password")
        }
        if let ca = options.caFile {
            try check(mosquitto_tls_set(h, ca, nil, nil, nil, nil), "loading the CA file '\(ca)'")
        }
        if let will = options.will {
            let bytes = Array(will.payload.utf8)
            try check(mosquitto_will_set(h, will.topic, Int32(bytes.count), bytes, 1, true), "setting the last will")
        }
        if options.protocolVersion == .v5, options.sessionExpiry > 0 {
            try check(mosquitto_property_add_int32(&connectProperties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue),
                                                   options.sessionExpiry), "setting the session expiry")
        }
        mosquitto_connect_v5_callback_set(h) { _, obj, rc, _, _ in
            MQTTClient.from(obj).didConnect(rc)
        }
        mosquitto_message_v5_callback_set(h) { _, obj, message, _ in
            guard let m = message?.pointee, let topic = m.topic else { return }
            let payload = UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen))
            let c = MQTTClient.from(obj)
            guard !c.lock.withLock({ c.discarding }) else { return }
            c.handlers.message(topic, payload, m.qos, m.retain)
        }
        mosquitto_subscribe_v5_callback_set(h) { _, obj, _, _, _, _ in
            let c = MQTTClient.from(obj)
            c.handlers.subscribed(c)
        }
        mosquitto_publish_v5_callback_set(h) { _, obj, _, _, _ in
            let c = MQTTClient.from(obj)
            c.lock.withLock { c._outstanding = max(0, c._outstanding - 1) }
        }
    }

    deinit {
        mosquitto_destroy(handle)
        mosquitto_property_free_all(&connectProperties)
    }

    private static let initialiseLibrary: Void = { _ = mosquitto_lib_init() }()

    private static func from(_ obj: UnsafeMutableRawPointer?) -> MQTTClient {
        Unmanaged<MQTTClient>.fromOpaque(obj!).takeUnretainedValue()
    }

    private func check(_ rc: Int32, _ context: String) throws(MQTTError) {
        if rc != MOSQ_ERR_SUCCESS.rawValue { throw MQTTError(code: rc, context: context) }
    }

    /// True while the broker has accepted the connection.
    var isConnected: Bool { lock.withLock { _connected } }
    /// Messages handed to libmosquitto and not yet written (QoS 0) or acknowledged (QoS 1).
    var outstanding: Int { lock.withLock { _outstanding } }
    /// `isConnected` and `outstanding` together (one lock).
    var state: (connected: Bool, outstanding: Int) { lock.withLock { (_connected, _outstanding) } }
    /// Connections the broker accepted, and connections lost after that.
    var counts: (connects: Int, losses: Int) { lock.withLock { (_connects, _losses) } }

    /// Starts the client's thread, which connects and keeps connecting.
    /// - Parameters:
    ///   - name: the thread's name, as `top -H` shows it.
    ///   - handlers: called on that thread.
    func start(name: String, handlers: Handlers) {
        self.handlers = handlers
        let t = Thread { [self] in
            ThreadName.setCurrent(name)
            run()
            finished.signal()
        }
        t.name = name
        thread = t
        t.start()
    }

    /// Asks the broker to subscribe this client to `pattern`. Any thread.
    @discardableResult
    func subscribe(_ pattern: String, qos: Int32) -> Int32 {
        mosquitto_subscribe(handle, nil, pattern, qos)
    }

    /// Queues one message (libmosquitto copies topic and payload). Any thread; never blocks.
    /// - Returns: libmosquitto's result code (`MOSQ_ERR_NO_CONN` while disconnected).
    @discardableResult
    func publish(topic: UnsafePointer<CChar>, payload: UnsafeRawBufferPointer, qos: Int32, retain: Bool) -> Int32 {
        let rc = publishOnClientThread(topic: topic, payload: payload, qos: qos, retain: retain)
        wakeUp?.signal()   // its own poll does not watch libmosquitto's socket pair
        return rc
    }

    /// `publish` from `handlers.work` (the client's thread), which writes the packet when it returns.
    @discardableResult
    func publishOnClientThread(topic: UnsafePointer<CChar>, payload: UnsafeRawBufferPointer, qos: Int32, retain: Bool) -> Int32 {
        let rc = mosquitto_publish(handle, nil, topic, Int32(payload.count), payload.baseAddress, qos, retain)
        if rc == MOSQ_ERR_SUCCESS.rawValue { lock.withLock { _outstanding += 1 } }
        return rc
    }

    /// `ownLoop`: runs `handlers.work` on the client's thread soon. Any thread; never blocks.
    func requestWork() { wakeUp?.signal() }

    /// Stops the thread: waits up to `flush` seconds for queued messages to go out, disconnects cleanly
    /// (the broker does not publish the will), and returns once the thread has ended. Idempotent.
    func stop(flush: Double = 1) {
        let first: Bool = lock.withLock {
            defer { stopRequested = true }
            guard !stopRequested && thread != nil else { return false }
            flushDeadline = ServiceClock.monotonicNow() + Int64(flush * 1e9)
            return true
        }
        guard first else { return }
        wake.signal()
        finished.wait()
        finished.signal()
        // The thread's closure holds this client: let the finished thread go, so the client can.
        lock.withLock { thread = nil }
    }

    /// Until when `disconnectCleanly` lets queued messages go out (monotonic ns); under `lock`.
    private var flushDeadline: Int64 = 0

    // MARK: the client's thread

    private func run() {
        var delay = options.reconnectDelay
        while !lock.withLock({ stopRequested }) {
            // Each attempt sends the CONNECT properties again (the session expiry of MQTT 5), which
            // `mosquitto_reconnect` would leave out.
            let rc = mosquitto_connect_bind_v5(handle, options.host, options.port, options.keepAlive, nil, connectProperties)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                handlers.problem("cannot connect to \(options.host):\(options.port): \(MQTTError.describe(rc))")
                backOff(&delay)
                continue
            }
            var loopRC = MOSQ_ERR_SUCCESS.rawValue
            while !lock.withLock({ stopRequested }) {
                loopRC = wakeUp.map(pollOnce) ?? mosquitto_loop(handle, Self.loopTimeoutMilliseconds, 1)
                if loopRC != MOSQ_ERR_SUCCESS.rawValue { break }
                if isConnected { delay = options.reconnectDelay }
            }
            if lock.withLock({ stopRequested }) { break }
            let wasConnected = lock.withLock { () -> Bool in
                defer { _connected = false }
                if _connected { _losses += 1 }
                return _connected
            }
            handlers.problem(wasConnected
                ? "lost the connection to \(options.host):\(options.port): \(MQTTError.describe(loopRC)); reconnecting"
                : "the broker at \(options.host):\(options.port) closed the connection: \(MQTTError.describe(loopRC))")
            backOff(&delay)
        }
        disconnectCleanly()
    }

    /// Milliseconds `mosquitto_loop` waits for the socket (a publish from another thread wakes it sooner).
    private static let loopTimeoutMilliseconds: Int32 = 100

    /// `ownLoop`'s `mosquitto_loop`: waits for the socket or the wake-up pipe; when woken, runs
    /// `handlers.work` with the socket corked and writes what it queued in as few segments as the
    /// kernel can; then reads, writes what is left, and keeps the connection alive. - Returns: the
    /// first failing libmosquitto result (the connection is then closed), else success.
    private func pollOnce(_ w: WakePipe) -> Int32 {
        let ok = MOSQ_ERR_SUCCESS.rawValue
        let sock = mosquitto_socket(handle)
        guard sock >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        let writable = mosquitto_want_write(handle) ? Int16(POLLOUT) : 0
        var fds = [pollfd(fd: sock, events: Int16(POLLIN) | writable, revents: 0),
                   pollfd(fd: w.readEnd, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 2, Self.loopTimeoutMilliseconds) < 0 && errno != EINTR { return MOSQ_ERR_ERRNO.rawValue }
        if fds[1].revents != 0 {
            w.drain()
            Self.cork(sock, true)
            handlers.work()
            let rc = mosquitto_loop_write(handle, 1)
            Self.cork(sock, false)
            if rc != ok { return rc }
        }
        if fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            let rc = mosquitto_loop_read(handle, 1)
            if rc != ok { return rc }
        }
        if mosquitto_want_write(handle) {
            let rc = mosquitto_loop_write(handle, 1)
            if rc != ok { return rc }
        }
        return mosquitto_loop_misc(handle)
    }

    /// TCP_CORK on or off: while on, the kernel holds partial segments, so libmosquitto's one `send`
    /// per packet fills whole segments; off sends what is held at once.
    private static func cork(_ fd: Int32, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Waits `delay` seconds (or until `stop`) and doubles it, up to the maximum.
    private func backOff(_ delay: inout Double) {
        _ = wake.wait(timeout: .now() + delay)
        delay = min(options.reconnectMaxDelay, delay * 2)
    }

    /// Lets queued messages go out (until the flush deadline), then sends DISCONNECT. Messages read
    /// from here on are not delivered (`discarding`); the acknowledgements of those delivered are
    /// written before the DISCONNECT, so the broker sends none of them again.
    private func disconnectCleanly() {
        guard isConnected else { return }
        lock.withLock { discarding = true }
        if wakeUp != nil { handlers.work() }   // what was handed over before the stop
        _ = mosquitto_loop_write(handle, 1)
        let deadline = lock.withLock { flushDeadline }
        while outstanding > 0 && ServiceClock.monotonicNow() < deadline {
            if mosquitto_loop(handle, 10, 1) != MOSQ_ERR_SUCCESS.rawValue { return }
        }
        mosquitto_disconnect(handle)
        // Writes what is queued, the DISCONNECT last; libmosquitto closes the socket after it.
        let end = ServiceClock.monotonicNow() + 500_000_000
        while ServiceClock.monotonicNow() < end, mosquitto_loop_write(handle, 1) == MOSQ_ERR_SUCCESS.rawValue,
              mosquitto_want_write(handle) {
            _ = mosquitto_loop(handle, 10, 1)
        }
        lock.withLock { _connected = false }
    }

    private func didConnect(_ rc: Int32) {
        guard rc == 0 else {
            handlers.problem("the broker at \(options.host):\(options.port) refused the connection: "
                             + String(cString: mosquitto_reason_string(rc)))
            return
        }
        lock.withLock { _connected = true; _connects += 1 }
        handlers.connected(self)
    }
}

/// A libmosquitto call that failed: its code and what was being done.
struct MQTTError: Error, CustomStringConvertible {
    var code: Int32
    var context: String
    var description: String { "\(context): \(Self.describe(code))" }

    /// libmosquitto's text for a result code (with errno's text for `MOSQ_ERR_ERRNO`).
    static func describe(_ code: Int32) -> String {
        if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(code))
    }
}
