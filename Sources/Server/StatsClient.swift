/// The client side of `#stats` and `#anchors`: what `sextant status` and the tests use.
public enum StatsClient {
    /// Connects to a feed port, sends `#stats` (or `#stats lp`), and reads the reply until the service
    /// closes the connection.
    /// - Parameters:
    ///   - host: IPv4 address of the service.
    ///   - port: its feed port.
    ///   - lineProtocol: ask for one `sextant_stats` line instead of `# key=value` lines.
    ///   - timeout: seconds to wait for each read.
    ///   - token: the feed token to send first (`auth TOKEN`), when the service requires one.
    /// - Returns: the reply text (`# error: …` when the service refused the token).
    public static func request(host: String, port: UInt16, lineProtocol: Bool = false,
                               timeout: Double = 5, token: String? = nil) throws(SystemError) -> String {
        try request(lineProtocol ? "#stats lp" : "#stats", host: host, port: port, timeout: timeout, token: token)
    }

    /// Connects to a feed port, sends one request line (`#stats`, `#stats lp` or `#anchors`), and reads
    /// the reply until the service closes the connection.
    public static func request(_ line: String, host: String, port: UInt16, timeout: Double = 5,
                               token: String? = nil) throws(SystemError) -> String {
        let socket = try Socket.connect(host: host, port: port)
        socket.setReceiveTimeout(timeout)
        let auth = token.map { "auth \($0)\n" } ?? ""
        try socket.writeAll(Array((auth + line + "\n").utf8))
        var reply: [UInt8] = []
        while true {
            let chunk = try socket.read()
            if chunk.isEmpty { break }
            reply += chunk
        }
        return String(decoding: reply, as: UTF8.self)
    }
}
