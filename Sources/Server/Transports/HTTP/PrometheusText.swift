/// The counters in the Prometheus text exposition format (version 0.0.4), for `GET /metrics`.
///
/// Every `ServiceStats` field becomes `sextant_<name>`: counters end in `_total`, gauges (values that go
/// down: connections open, tags tracked, …) do not; rejections are one counter with a `reason` label.
/// The HTTP port adds its responses by status code and its streams. There is no latency histogram:
/// the service measures none (`service-bench` measures feed latency from outside).
enum PrometheusText {
    /// Fields that are gauges; every other field is a counter.
    static let gauges: Set<String> = ["ingest_connections", "feed_clients", "positions_remembered", "tags", "sites",
                                      "anchors_silent", "history_pending"]

    static func render(_ s: ServiceStats, http: HTTPCounters, streams: Int, streamsDisconnected: Int) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Int)]) {
            out += "# HELP sextant_\(name) \(help)\n# TYPE sextant_\(name) \(type)\n"
            for (labels, v) in samples { out += "sextant_\(name)\(labels) \(v)\n" }
        }
        for (key, value) in s.fields {
            if key == "rejected" || key.hasPrefix("rejected_") { continue }
            if gauges.contains(key) {
                metric(key, "gauge", help(key), [("", value)])
            } else {
                let name = key.hasSuffix("_total") ? key : key + "_total"
                metric(name, "counter", help(key), [("", value)])
            }
        }
        metric("rejected_lines_total", "counter", "Ingest lines rejected, by reason.",
               s.rejected.keys.sorted().map { ("{reason=\"\($0)\"}", s.rejected[$0]!) })
        out += "# HELP sextant_uptime_seconds Seconds since the service started.\n# TYPE sextant_uptime_seconds gauge\n"
        out += "sextant_uptime_seconds \(s.uptimeSeconds)\n"
        metric("build_info", "gauge", "The running build (always 1; the version is a label).",
               [("{version=\"\(escape(s.version))\"}", 1)])
        metric("http_responses_total", "counter", "HTTP responses by status code (streams count once, when they start).",
               http.responses.keys.sorted().map { ("{code=\"\($0)\"}", http.responses[$0]!) })
        metric("http_streams", "gauge", "HTTP streams (SSE and WebSocket) subscribed now.", [("", streams)])
        metric("http_streams_opened_total", "counter", "HTTP streams opened, by transport.",
               [("{transport=\"sse\"}", http.sseOpened), ("{transport=\"websocket\"}", http.webSocketsOpened)])
        metric("http_stream_messages_total", "counter", "Messages (SSE events, WebSocket messages) sent on HTTP streams.",
               [("", http.streamMessages)])
        metric("http_stream_writes_total", "counter",
               "Writes to HTTP streams, by where they ran: at once when the loop handed bytes over (wake), or in a writable callback (headers, heartbeats, the rest after a full socket).",
               [("{at=\"wake\"}", http.streamWritesAtWake), ("{at=\"writable\"}", http.streamWritesAtWritable)])
        metric("http_heartbeats_total", "counter", "Heartbeats sent on HTTP streams.", [("", http.heartbeats)])
        metric("http_streams_disconnected_total", "counter", "HTTP streams closed because their queue overflowed (policy disconnect).",
               [("", streamsDisconnected)])
        metric("http_auth_failures_total", "counter", "HTTP requests refused for an unknown token.", [("", http.authFailures)])
        return out
    }

    static func help(_ key: String) -> String {
        "The service counter \(key) (see docs/service.md, #stats)."
    }

    /// A label value with `\`, `"` and newlines escaped.
    static func escape(_ v: String) -> String {
        var o = ""
        for c in v {
            switch c {
            case "\\": o += "\\\\"
            case "\"": o += "\\\""
            case "\n": o += "\\n"
            default: o.append(c)
            }
        }
        return o
    }
}
