import CWebSockets
import Wire

/// One HTTP exchange or stream on the HTTP thread: a response to write (headers, then the body in
/// chunks), or a stream (SSE or WebSocket) that writes what its outbox holds, one message per line.
final class HTTPConnection {
    enum Kind { case exchange, sse, webSocket }

    let id: UInt64
    let wsi: OpaquePointer
    unowned let server: HTTPServer
    var kind = Kind.exchange
    /// The response to send, and how far it got (exchange); the headers first (exchange and SSE).
    private var response: HTTPResponse?
    private var headersSent = false
    private var bodySent = 0
    /// The stream's shared queue with the service loop (SSE, WebSocket), its format, and the bytes
    /// taken from it and not yet written (whole lines, from `pendingStart`).
    var stream: StreamOutbox?
    var format = FeedFormat.json
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var heartbeatWaiting = false
    /// WebSocket messages written per writable callback before yielding to other connections.
    static let messagesPerWrite = 512

    init(id: UInt64, wsi: OpaquePointer, server: HTTPServer) {
        self.id = id; self.wsi = wsi; self.server = server
    }

    /// Queues a whole response and asks lws for a write.
    func respond(_ r: HTTPResponse) {
        response = r
        server.counts.responses[r.status, default: 0] += 1
        lws_callback_on_writable(wsi)
    }

    /// Makes this connection an SSE or WebSocket stream fed by `outbox` (the loop writes to it).
    func startStream(_ kind: Kind, format: FeedFormat, outbox: StreamOutbox) {
        self.kind = kind
        self.format = format
        stream = outbox
        if kind == .sse { server.counts.responses[200, default: 0] += 1 }
        server.counts.streamsOpen += 1
        lws_set_timer_usecs(wsi, server.heartbeatMicroseconds)
        lws_callback_on_writable(wsi)
    }

    func heartbeatDue() {
        heartbeatWaiting = true
        lws_set_timer_usecs(wsi, server.heartbeatMicroseconds)
        lws_callback_on_writable(wsi)
    }

    /// The client went away: the loop lets its subscription go.
    func closed() {
        if let stream {
            server.counts.streamsOpen -= 1
            server.api.streamClosed(id: id, outbox: stream)
        }
    }

    /// lws may write: the next piece. - Returns: -1 to close the connection.
    func writable() -> Int32 {
        switch kind {
        case .exchange: return writeExchange()
        case .sse: return writeSSE()
        case .webSocket: return writeWebSocket()
        }
    }

    private var buffer: UnsafeMutablePointer<UInt8> { server.scratch + server.pre }

    private func writeHeaders(status: Int, contentType: String, length: Int?) -> Bool {
        var p: UnsafeMutablePointer<UInt8>? = buffer
        let end = buffer + 4096
        let len = length.map { lws_filepos_t($0) } ?? sextant_lws_illegal_content_length
        guard lws_add_http_common_headers(wsi, UInt32(status), contentType, len, &p, end) == 0,
              lws_add_http_header_by_name(wsi, "cache-control:", "no-store", 8, &p, end) == 0,
              lws_finalize_write_http_header(wsi, buffer, &p, end) == 0 else { return false }
        headersSent = true
        return true
    }

    /// Writes a small response (headers and body) from inside a callback that may answer at once
    /// (a refused upgrade). - Returns: false when the write failed.
    static func writeAtOnce(_ wsi: OpaquePointer, _ r: HTTPResponse, server: HTTPServer) -> Bool {
        let buffer = server.scratch + server.pre
        var p: UnsafeMutablePointer<UInt8>? = buffer
        let end = buffer + 4096
        guard lws_add_http_common_headers(wsi, UInt32(r.status), r.contentType, lws_filepos_t(r.body.count), &p, end) == 0,
              lws_finalize_write_http_header(wsi, buffer, &p, end) == 0 else { return false }
        let n = min(r.body.count, HTTPServer.scratchBytes)
        r.body.withUnsafeBufferPointer { b in buffer.update(from: b.baseAddress!, count: n) }
        return lws_write(wsi, buffer, n, LWS_WRITE_HTTP_FINAL) >= 0
    }

    private func writeExchange() -> Int32 {
        guard let r = response else { return 0 }   // still being computed elsewhere
        if !headersSent {
            guard writeHeaders(status: r.status, contentType: r.contentType, length: r.body.count) else { return -1 }
            if r.body.isEmpty { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
            lws_callback_on_writable(wsi)
            return 0
        }
        let n = min(r.body.count - bodySent, HTTPServer.scratchBytes)
        r.body.withUnsafeBufferPointer { b in buffer.update(from: b.baseAddress! + bodySent, count: n) }
        let last = bodySent + n == r.body.count
        guard lws_write(wsi, buffer, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) >= 0 else { return -1 }
        bodySent += n
        if last { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
        lws_callback_on_writable(wsi)
        return 0
    }

    /// Takes what the loop put in the outbox; true when the loop asked to close the stream.
    private func refill() -> (closing: Bool, message: String?) {
        guard let stream else { return (true, nil) }
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        }
        let taken = stream.take(into: &pending)
        if stream.takeResume() { server.api.resumeStream(id: id) }
        return taken
    }

    private func writeSSE() -> Int32 {
        if !headersSent {
            guard writeHeaders(status: 200, contentType: "text/event-stream", length: nil) else { return -1 }
            lws_http_mark_sse(wsi)
            lws_callback_on_writable(wsi)
            return 0
        }
        let (closing, message) = refill()
        var out = 0
        let capacity = HTTPServer.scratchBytes - 64
        func put(_ bytes: UnsafeRawBufferPointer) {
            (buffer + out).update(from: bytes.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count)
            out += bytes.count
        }
        if heartbeatWaiting {
            heartbeatWaiting = false
            server.counts.heartbeats += 1
            ": heartbeat\n\n".utf8CString.dropLast().withUnsafeBytes { put($0) }
        }
        var lines = 0
        while pendingStart < pending.count {
            guard let nl = pending[pendingStart...].firstIndex(of: 10) else { break }
            let line = StreamLine.message(pending[pendingStart..<nl], format: format)
            guard out + line.count + 8 <= capacity else { break }
            "data: ".utf8CString.dropLast().withUnsafeBytes { put($0) }
            line.withUnsafeBytes { put($0) }
            "\n\n".utf8CString.dropLast().withUnsafeBytes { put($0) }
            pendingStart = nl + 1
            lines += 1
        }
        if let message, pendingStart == pending.count {
            let line = "event: error\ndata: " + message + "\n\n"
            line.utf8CString.dropLast().withUnsafeBytes { put($0) }
        }
        server.counts.streamMessages += lines
        if out > 0, lws_write(wsi, buffer, out, LWS_WRITE_HTTP) < 0 { return -1 }
        if closing && pendingStart == pending.count { return -1 }
        if pendingStart < pending.count || stream?.hasWork == true { lws_callback_on_writable(wsi) }
        return 0
    }

    private func writeWebSocket() -> Int32 {
        let (closing, message) = refill()
        if heartbeatWaiting {
            heartbeatWaiting = false
            server.counts.heartbeats += 1
            let beat = format == .json
                ? "{\"type\":\"heartbeat\",\"time\":\"\(TimeText.iso8601(ServiceClock.wallNow()))\"}"
                : "# heartbeat \(ServiceClock.wallNow())"
            guard send(Array(beat.utf8)) else { return -1 }
        }
        var messages = 0
        while pendingStart < pending.count, messages < Self.messagesPerWrite, lws_send_pipe_choked(wsi) == 0 {
            guard let nl = pending[pendingStart...].firstIndex(of: 10) else { break }
            guard send(StreamLine.message(pending[pendingStart..<nl], format: format)) else { return -1 }
            pendingStart = nl + 1
            messages += 1
        }
        server.counts.streamMessages += messages
        if closing && pendingStart == pending.count {
            let reason = Array((message ?? "closed").utf8.prefix(120))
            reason.withUnsafeBufferPointer { b in
                lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, UnsafeMutablePointer(mutating: b.baseAddress), b.count)
            }
            return -1
        }
        if pendingStart < pending.count || stream?.hasWork == true { lws_callback_on_writable(wsi) }
        return 0
    }

    /// Writes one WebSocket text message. - Returns: false when the connection failed.
    private func send(_ message: some Collection<UInt8>) -> Bool {
        let n = min(message.count, HTTPServer.scratchBytes)
        var i = 0
        for b in message.prefix(n) { buffer[i] = b; i += 1 }
        return lws_write(wsi, buffer, n, LWS_WRITE_TEXT) >= 0
    }
}
