/// Where the HTTP port listens: `ADDR:PORT` (`127.0.0.1:7402`, `[::1]:7402`, `0.0.0.0:80`), or off.
public struct HTTPEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The IPv4 or IPv6 address (without brackets).
    public var host: String
    /// The TCP port (0: any free port, as the tests use).
    public var port: UInt16

    /// The endpoint of `sextant serve` when neither `--http` nor the config key `http` says otherwise.
    public static let standard = HTTPEndpoint(host: "127.0.0.1", port: 7402)

    public init(host: String, port: UInt16) { self.host = host; self.port = port }

    /// Parses `ADDR:PORT`, `[IPV6]:PORT` or a bare port (on loopback). `0` (or `off`) means off: nil.
    /// - Throws: `ConfigError` for the key `http`, with the forms it accepts.
    public static func parse(_ text: String) throws(ConfigError) -> HTTPEndpoint? {
        if text == "0" || text == "off" { return nil }
        let usage = "must be ADDR:PORT (e.g. 127.0.0.1:7402 or [::1]:7402), a port on loopback, or 0 for off; got '\(text)'"
        if let p = UInt16(text) { return HTTPEndpoint(host: "127.0.0.1", port: p) }
        var host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ConfigError(key: "http", message: usage)
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw ConfigError(key: "http", message: usage)
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText), !host.isEmpty else { throw ConfigError(key: "http", message: usage) }
        do { _ = try Socket.address(host: String(host), port: 0) } catch {
            throw ConfigError(key: "http", message: "'\(host)' is not an IPv4 or IPv6 address")
        }
        return HTTPEndpoint(host: String(host), port: port)
    }

    /// `ADDR:PORT`, IPv6 in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// True for a loopback address.
    var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" || host == "localhost" }
}
