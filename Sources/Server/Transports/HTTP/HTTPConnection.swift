import CWebSockets
import Foundation
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
    /// A write outside the writable callback failed or closed the stream: the next writable callback
    /// tells lws to close the connection (only a callback of this connection can).
    private var closeAtWritable = false
    /// WebSocket messages written per writable callback before yielding to other connections.
    static let messagesPerWrite = 512
    /// A feed line that is not an output (a `#` comment, such as the hub's dropped-lines marker).
    private static let commentByte = UInt8(ascii: "#")

    /// The server's scratch buffer past lws's headroom, where every write is put together. Held here,
    /// not read through `server` on each use: every access to an unowned reference retains it.
    private let buffer: UnsafeMutablePointer<UInt8>

    init(id: UInt64, wsi: OpaquePointer, server: HTTPServer) {
        self.id = id; self.wsi = wsi; self.server = server
        buffer = server.scratch + server.pre
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

    /// Writes what the stream's outbox holds now, from outside lws's writable callback (the wake's
    /// callback), when lws holds none of the stream's earlier bytes: the bytes go to the socket at once
    /// (what it does not take, lws keeps and writes once it is writable, as after any write). Otherwise,
    /// and for an SSE stream whose headers are not yet out, it asks for a writable callback.
    func writeStream() {
        guard stream != nil, !closeAtWritable, kind == .webSocket || headersSent, lws_partial_buffered(wsi) == 0 else {
            lws_callback_on_writable(wsi)
            return
        }
        server.counts.streamWritesAtWake += 1
        if write() < 0 {
            closeAtWritable = true
            lws_callback_on_writable(wsi)
        }
    }

    /// lws may write: the next piece. - Returns: -1 to close the connection.
    func writable() -> Int32 {
        if closeAtWritable { return -1 }
        if kind != .exchange { server.counts.streamWritesAtWritable += 1 }
        return write()
    }

    private func write() -> Int32 {
        switch kind {
        case .exchange: return writeExchange()
        case .sse: return writeSSE()
        case .webSocket: return writeWebSocket()
        }
    }


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
        guard lws_add_http_common_headers(wsi, UInt32(r.status), r.contentType, lws_filepos_t(r.body.count), &p, end) == 0
        else { return false }
        // lws writes the status line with the request's HTTP version, which it reads only for requests
        // that reach lws_http_action: an upgrade request and one whose headers never ended get
        // "HTTP/1.0". A handshake is HTTP/1.1 (RFC 6455, 4.1), and a server answers an HTTP/1.x
        // request with the highest 1.x it speaks (RFC 9110, 2.5): HTTP/1.1.
        if memcmp(buffer, "HTTP/1.0 ", 9) == 0 { buffer[7] = UInt8(ascii: "1") }
        guard lws_finalize_write_http_header(wsi, buffer, &p, end) == 0 else { return false }
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
        while let nl = nextLineEnd() {
            let count = nl - pendingStart
            guard out + 2 * count + 64 <= capacity else { break }   // a comment line grows when quoted
            "data: ".utf8CString.dropLast().withUnsafeBytes { put($0) }
            if pending[pendingStart] == Self.commentByte {
                StreamLine.message(pending[pendingStart..<nl], format: format).withUnsafeBytes { put($0) }
            } else {
                pending.withUnsafeBytes { put(UnsafeRawBufferPointer(rebasing: $0[pendingStart..<nl])) }
            }
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
            guard Array(beat.utf8).withUnsafeBytes({ send($0) }) else { return -1 }
        }
        var messages = 0
        // Each message is its own lws_write (a send(2) each): with more than one, corked, the kernel
        // sends them in as few segments as fit, as the TCP feed's one write of many lines does. A send
        // the socket takes only part of is kept by lws (`lws_partial_buffered`), which stops the loop.
        let corked = hasSecondLine() && setCork(true)
        while messages < Self.messagesPerWrite, lws_partial_buffered(wsi) == 0, let nl = nextLineEnd() {
            let sent: Bool
            if pending[pendingStart] == Self.commentByte {
                sent = StreamLine.message(pending[pendingStart..<nl], format: format).withUnsafeBytes { send($0) }
            } else {
                sent = pending.withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[pendingStart..<nl])) }
            }
            guard sent else { return -1 }
            pendingStart = nl + 1
            messages += 1
        }
        if corked { _ = setCork(false) }
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
    private func send(_ message: UnsafeRawBufferPointer) -> Bool {
        let n = min(message.count, HTTPServer.scratchBytes)
        if n > 0 { UnsafeMutableRawPointer(buffer).copyMemory(from: message.baseAddress!, byteCount: n) }
        return lws_write(wsi, buffer, n, LWS_WRITE_TEXT) >= 0
    }

    /// The index of the newline ending the line at `pendingStart`, or nil when no whole line waits.
    private func nextLineEnd() -> Int? {
        guard pendingStart < pending.count else { return nil }
        return pending.withUnsafeBytes { b -> Int? in
            guard let p = memchr(b.baseAddress! + pendingStart, 10, b.count - pendingStart) else { return nil }
            return UnsafeRawPointer(p) - b.baseAddress!
        }
    }

    /// True when at least two whole lines wait from `pendingStart`.
    private func hasSecondLine() -> Bool {
        guard let first = nextLineEnd(), first + 1 < pending.count else { return false }
        return pending.withUnsafeBytes { b in memchr(b.baseAddress! + first + 1, 10, b.count - first - 1) != nil }
    }

    /// Sets TCP_CORK on the connection's socket. - Returns: whether it was set.
    private func setCork(_ on: Bool) -> Bool {
        let fd = lws_get_socket_fd(wsi)
        guard fd >= 0 else { return false }
        var v: Int32 = on ? 1 : 0
        return setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &v, socklen_t(MemoryLayout<Int32>.size)) == 0
    }
}
