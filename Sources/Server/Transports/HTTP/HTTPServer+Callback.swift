import CWebSockets

/// The lws events, on the HTTP thread.
extension HTTPServer {
    func callback(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutablePointer<UInt64>?,
                  _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
            // Its headers are due within timeoutSeconds; else LWS_CALLBACK_TIMER answers 408.
            lws_set_timer_usecs(wsi, lws_usec_t(Self.timeoutSeconds) * 1_000_000)
            return 0
        case LWS_CALLBACK_HTTP:
            guard let user else { return -1 }
            lws_set_timer_usecs(wsi, LWS_SET_TIMER_USEC_CANCEL)
            if user.pointee != 0 { connections[user.pointee] = nil }   // the next request of a keep-alive connection
            let c = HTTPConnection(id: newID(), wsi: wsi, server: self)
            user.pointee = c.id
            connections[c.id] = c
            if let tooBig = oversized(wsi) { c.respond(tooBig); return 0 }
            api.handle(request(wsi), on: c)
            return 0
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            // A request with a body (refused: every route is GET) is answered once lws has read it.
            if let id = user?.pointee, connections[id] != nil { lws_callback_on_writable(wsi) }
            return 0
        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let id = user?.pointee, let c = connections[id] else { return -1 }
            return c.writable()
        case LWS_CALLBACK_HTTP_BODY:
            return 0   // request bodies are not read: every route is GET
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            // Before lws upgrades: only a complete WebSocket handshake on the feed path, with a valid
            // token and parameters; anything else gets a JSON 4xx instead of a silent hang-up.
            lws_set_timer_usecs(wsi, LWS_SET_TIMER_USEC_CANCEL)
            let to = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
            let refusal: HTTPAPI.Refusal?
            if to != "websocket" {
                refusal = HTTPAPI.Refusal(status: 400, message: "only WebSocket upgrades are served, at /api/v1/feed/ws (got an upgrade to '\(to.prefix(40))')")
            } else if lws_hdr_total_length(wsi, WSI_TOKEN_KEY) <= 0 || !versionIs13(wsi) {
                refusal = HTTPAPI.Refusal(status: 400, message: "incomplete WebSocket handshake: it needs Sec-WebSocket-Key and Sec-WebSocket-Version: 13 (RFC 6455)")
            } else {
                refusal = api.webSocketRefusal(request(wsi))
            }
            guard let refusal else { return 0 }
            counts.responses[refusal.status, default: 0] += 1
            return HTTPConnection.writeAtOnce(wsi, refusal.response, server: self) ? 1 : -1
        case LWS_CALLBACK_ESTABLISHED:
            guard let user else { return -1 }
            let c = HTTPConnection(id: newID(), wsi: wsi, server: self)
            user.pointee = c.id
            connections[c.id] = c
            api.openWebSocket(request(wsi), on: c)
            return 0
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let id = user?.pointee, let c = connections[id] else { return -1 }
            return c.writable()
        case LWS_CALLBACK_RECEIVE:
            return 0   // a client's messages are ignored (lws answers pings itself)
        case LWS_CALLBACK_TIMER:
            guard let id = user?.pointee, id != 0 else {
                // No request yet: the headers did not end within timeoutSeconds.
                let r = HTTPResponse.error(408, "the request headers did not arrive within \(Self.timeoutSeconds) s")
                counts.responses[408, default: 0] += 1
                _ = HTTPConnection.writeAtOnce(wsi, r, server: self)
                return -1
            }
            connections[id]?.heartbeatDue()
            return 0
        case LWS_CALLBACK_CLOSED, LWS_CALLBACK_CLOSED_HTTP:
            if let user, user.pointee != 0, let c = connections.removeValue(forKey: user.pointee) {
                c.closed()
                user.pointee = 0
            }
            return 0
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            runInbox()
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user.map(UnsafeMutableRawPointer.init), input, length)
        }
    }

    /// 414 for a path and query above `maxURIBytes`, 431 for headers above `maxKnownHeaderBytes`.
    private func oversized(_ wsi: OpaquePointer) -> HTTPResponse? {
        let uri = Int(lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI)) + Int(lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS))
        if uri > Self.maxURIBytes {
            return .error(414, "the path and query are \(uri) bytes, above the limit of \(Self.maxURIBytes): ask for fewer tags or sites")
        }
        var total = 0
        for i in 0..<Int(WSI_TOKEN_COUNT.rawValue) { total += Int(max(0, lws_hdr_total_length(wsi, lws_token_indexes(UInt32(i))))) }
        if total > Self.maxKnownHeaderBytes {
            return .error(431, "the request headers are \(total) bytes, above the limit of \(Self.maxKnownHeaderBytes)")
        }
        return nil
    }

    private func versionIs13(_ wsi: OpaquePointer) -> Bool {
        var b = [CChar](repeating: 0, count: 8)
        return lws_hdr_copy(wsi, &b, Int32(b.count), WSI_TOKEN_VERSION) == 2 && String(cBuffer: b) == "13"
    }

    /// The request's method, path, query, token and peer, read from lws's header table.
    func request(_ wsi: OpaquePointer) -> HTTPRequest {
        var uriPointer: UnsafeMutablePointer<CChar>?
        var uriLength: Int32 = 0
        let m = lws_http_get_uri_and_method(wsi, &uriPointer, &uriLength)
        let method: HTTPRequest.Method = switch Int(m) {
        case Int(LWSHUMETH_GET): .get
        case Int(LWSHUMETH_HEAD): .head
        default: .other
        }
        let path = uriPointer.map { p in
            String(decoding: UnsafeRawBufferPointer(start: p, count: Int(max(0, uriLength))), as: UTF8.self)
        } ?? "/"
        var query: [String: String] = [:]
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(Self.maxHeaderBytes) + 1)
        defer { buffer.deallocate() }
        var index: Int32 = 0
        while true {
            let n = lws_hdr_copy_fragment(wsi, buffer, Int32(Self.maxHeaderBytes) + 1, WSI_TOKEN_HTTP_URI_ARGS, index)
            if n < 0 { break }
            let part = String(decoding: UnsafeRawBufferPointer(start: buffer, count: Int(n)), as: UTF8.self)
            if let eq = part.firstIndex(of: "=") {
                query[String(part[..<eq])] = String(part[part.index(after: eq)...])
            } else if !part.isEmpty {
                query[part] = ""
            }
            index += 1
        }
        var token: String?
        let n = lws_hdr_copy(wsi, buffer, Int32(Self.maxHeaderBytes) + 1, WSI_TOKEN_HTTP_AUTHORIZATION)
        if n > 0 {
            let header = String(decoding: UnsafeRawBufferPointer(start: buffer, count: Int(n)), as: UTF8.self)
            if header.lowercased().hasPrefix("bearer ") { token = String(header.dropFirst(7)).trimmingCharacters(in: " ") }
        }
        if token == nil { token = query["token"] }
        var peer = [CChar](repeating: 0, count: 64)
        _ = lws_get_peer_simple(wsi, &peer, peer.count)
        return HTTPRequest(method: method, path: path, query: query, token: token,
                           peer: String(cBuffer: peer))
    }
}

private extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
