import Foundation
import CWebSockets
import Store

/// The HTTP port: libwebsockets' service loop on a thread of its own (`sextant.http`), parsing HTTP/1.1,
/// upgrading WebSockets, and writing responses and stream messages; `HTTPAPI` decides what each request
/// gets. Work that needs the engine or the feed hub goes to the service loop (`ServiceLoop.submit`),
/// history queries to a query thread; their answers come back through `deliver`, which wakes lws.
///
/// Stream bytes are written in the wake's own callback (`LWS_CALLBACK_EVENT_WAIT_CANCELLED`), in the
/// order the loop gave them, without waiting for another poll round and a writable callback per stream;
/// only a stream whose earlier bytes lws still holds (its socket was full) waits for its writable
/// callback. See `runInbox`.
///
/// Threading invariant: `connections`, `api`'s per-connection state and every lws call except
/// `lws_cancel_service` are touched only on the HTTP thread (inside `lws_service`); `inbox`,
/// `readyStreams`, `scanStreams`, `stopping` and `wakePending` are guarded by `lock`. That is why the
/// class may be `@unchecked Sendable`.
final class HTTPServer: @unchecked Sendable {
    static let threadName = "sextant.http"
    /// Longest path with its query string, bytes; longer: 414.
    static let maxURIBytes = 8192
    /// Most bytes of the request headers lws knows by name; more: 431.
    static let maxKnownHeaderBytes = 16384
    /// Most bytes lws keeps of a request's headers. A request beyond it is closed by lws without a
    /// response: its parser fails (`lws_pos_in_bounds`, lib/roles/http/parsers.c) and
    /// `lws_handshake_server` (lib/roles/http/server/server.c) drops the connection with no callback
    /// in between, whatever the options. The two limits above answer most oversized requests first.
    static let maxHeaderBytes: UInt16 = 32768
    /// Requests whose headers may be read at once; more wait for a buffer.
    static let headerPool: UInt16 = 256
    /// Seconds a client may take to send its first request's headers (slow headers): then it gets a
    /// 408 and is closed.
    static let timeoutSeconds: UInt32 = 10
    /// Seconds after which lws itself drops a connection still stuck (without a status; lws's
    /// `timeout_secs`), and keeps an idle keep-alive connection (`keepalive_timeout`, which lws also
    /// applies to headers that have begun): later than `timeoutSeconds`, so that the 408 goes first.
    static let lwsTimeoutSeconds: UInt32 = timeoutSeconds + 5

    let endpoint: HTTPEndpoint
    let logger: Logger
    /// Routes requests; set before `start()`.
    var api: HTTPAPI!
    private var context: OpaquePointer?
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName = strdup("sextant")
    private let interface: UnsafeMutablePointer<CChar>?
    /// Open connections by id (HTTP thread only).
    var connections: [UInt64: HTTPConnection] = [:]
    private var nextID: UInt64 = 1
    /// A scratch buffer with `LWS_PRE` bytes of headroom for every write (HTTP thread only).
    let scratch: UnsafeMutablePointer<UInt8>
    static let scratchBytes = 256 * 1024
    let pre = Int(sextant_lws_pre)
    private let lock = NSLock()
    private var inbox: [@Sendable (HTTPServer) -> Void] = []
    private var stopping = false
    /// A wake (`lws_cancel_service`) is on its way and the HTTP thread has not yet looked at the
    /// outboxes: more bytes for other streams need no wake of their own.
    private var wakePending = false
    /// Streams whose empty outbox the loop gave bytes since the HTTP thread last looked, in the order it
    /// gave them (at most one entry per stream and write of it: a bounded list), and whether every
    /// stream must be looked at (a close, a backfill).
    private var readyStreams: [UInt64] = []
    private var scanStreams = false
    private let finished = DispatchSemaphore(value: 0)
    /// The bound port (the real one when the endpoint asked for 0).
    private(set) var port: UInt16 = 0
    /// Counters (HTTP thread only; read through `counters()` on it).
    var counts = HTTPCounters()

    /// Microseconds between heartbeats on a stream (`ServiceConfig.httpHeartbeat`).
    let heartbeatMicroseconds: Int64

    init(endpoint: HTTPEndpoint, heartbeat: Double, logger: Logger) {
        self.endpoint = endpoint
        heartbeatMicroseconds = Int64(heartbeat * 1e6)
        self.logger = logger
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        interface = strdup(endpoint.host)
        scratch = .allocate(capacity: Self.scratchBytes + Int(sextant_lws_pre))
    }

    deinit {
        protocols.deallocate()
        free(protocolName)
        free(interface)
        scratch.deallocate()
    }

    /// Binds the port (before returning) and starts the HTTP thread.
    /// - Throws: `SystemError` when the port cannot be bound.
    func start() throws(SystemError) {
        lws_set_log_level(Int32(LLL_ERR), lwsLog)
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = httpCallback
        protocols[0].per_session_data_size = MemoryLayout<UInt64>.size
        protocols[0].rx_buffer_size = 4096
        var info = lws_context_creation_info()
        info.port = Int32(endpoint.port)
        info.iface = UnsafePointer(interface)
        info.protocols = UnsafePointer(protocols)
        info.gid = -1
        info.uid = -1
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.max_http_header_data = Self.maxHeaderBytes
        // Header buffers are held only while a request's headers are read (streams let theirs go).
        info.max_http_header_pool = Self.headerPool
        info.timeout_secs = Self.lwsTimeoutSeconds
        info.keepalive_timeout = Int32(Self.lwsTimeoutSeconds)
        info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        if !endpoint.host.contains(":") { info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) }
        guard let ctx = lws_create_context(&info) else {
            throw SystemError("listen on \(endpoint) (HTTP)", code: EADDRINUSE)
        }
        context = ctx
        let vhost = lws_get_vhost_by_name(ctx, "default")
        port = UInt16(truncatingIfNeeded: vhost.map { lws_get_vhost_listen_port($0) } ?? Int32(endpoint.port))
        let thread = Thread { [self] in
            ThreadName.setCurrent(Self.threadName)
            guard let ctx = context else { return }
            while !isStopping { _ = lws_service(ctx, 0) }
            // On this thread still: the close callbacks of the open connections run here.
            lws_context_destroy(ctx)
            finished.signal()
        }
        thread.name = Self.threadName
        thread.start()
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    /// Stops the HTTP thread and closes every connection. Any thread but the HTTP thread; idempotent.
    func stop() {
        guard let context else { return }
        let first: Bool = lock.withLock {
            defer { stopping = true }
            if !stopping { lws_cancel_service(context) }
            return !stopping
        }
        guard first else { return }
        finished.wait()
        finished.signal()
    }

    /// Runs `body` on the HTTP thread soon (wakes lws). Any thread.
    /// Once stopped, nothing runs (the context is gone).
    func deliver(_ body: @escaping @Sendable (HTTPServer) -> Void) {
        lock.withLock {
            guard !stopping, let context else { return }
            inbox.append(body)
            lws_cancel_service(context)
        }
    }

    /// Wakes the HTTP thread to write what stream `id`'s outbox holds (the loop flushes many streams in
    /// one turn: one wake serves them all). Any thread.
    func wake(stream id: UInt64) {
        lock.withLock {
            guard !stopping, let context else { return }
            readyStreams.append(id)
            if !wakePending { wakePending = true; lws_cancel_service(context) }
        }
    }

    /// Wakes the HTTP thread to look at every stream's outbox (a close or a backfill put something
    /// there). Any thread.
    func wake() {
        lock.withLock {
            guard !stopping, let context else { return }
            scanStreams = true
            if !wakePending { wakePending = true; lws_cancel_service(context) }
        }
    }

    /// Runs what other threads delivered, then writes the streams with bytes waiting, in the order the
    /// loop gave them (`HTTPConnection.writeStream`). A stream filled after `wakePending` is cleared here
    /// wakes the thread again.
    func runInbox() {
        let (pending, ready, scan) = lock.withLock {
            wakePending = false
            defer { inbox.removeAll(); readyStreams.removeAll(keepingCapacity: true); scanStreams = false }
            return (inbox, readyStreams, scanStreams)
        }
        for p in pending { p(self) }
        for id in ready {
            if let c = connections[id], c.stream?.hasWork == true { c.writeStream() }
        }
        if scan {
            for c in connections.values where c.stream?.hasWork ?? false { c.writeStream() }
        }
    }

    /// A new connection id (HTTP thread): above every loop token, so stream ids never meet feed ids.
    func newID() -> UInt64 {
        defer { nextID += 1 }
        return (1 << 62) | nextID
    }

    /// Sends `response` on connection `id` if it is still open (HTTP thread).
    func respond(_ id: UInt64, _ response: HTTPResponse) {
        guard let c = connections[id] else { return }
        c.respond(response)
    }
}

/// What the HTTP port counted (HTTP thread).
struct HTTPCounters: Sendable {
    /// Responses by status code.
    var responses: [Int: Int] = [:]
    var webSocketsOpened = 0
    var sseOpened = 0
    var streamMessages = 0
    /// Stream writes made in the wake's callback (at once), and in a writable callback (headers, a
    /// heartbeat, the rest after a full socket, a close).
    var streamWritesAtWake = 0
    var streamWritesAtWritable = 0
    var heartbeats = 0
    var authFailures = 0
    var streamsOpen = 0
}

/// The one lws callback: finds the server through the context's user pointer.
private func httpCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                          _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, let ctx = lws_get_context(wsi), let raw = lws_context_user(ctx) else { return 0 }
    let server = Unmanaged<HTTPServer>.fromOpaque(raw).takeUnretainedValue()
    return server.callback(wsi, reason, user?.assumingMemoryBound(to: UInt64.self), input, length)
}

/// lws's error lines, to standard error, without the one `lws_http_mark_sse` logs on every HTTP/1.1
/// stream ("not h2 substream": it marks HTTP/2 streams only, and the HTTP/1.1 stream works without).
private func lwsLog(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    let text = String(cString: line)
    if text.contains("not h2 substream") { return }
    FileHandle.standardError.write(Data(("lws: " + text).utf8))
}
