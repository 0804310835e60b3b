/// The loop's transports and which one owns each poller token (a listener's, or a connection's
/// while it is open). Loop thread only.
struct TransportTable {
    private(set) var all: [any LoopTransport] = []
    private var owners: [UInt64: any LoopTransport] = [:]
    private var lastToken: UInt64 = Poller.wakeToken

    /// Adds a transport; poller events of `tokens` go to it.
    mutating func add(_ transport: any LoopTransport, tokens: [UInt64]) {
        all.append(transport)
        for t in tokens { owners[t] = transport }
    }

    /// A token not used before.
    mutating func newToken() -> UInt64 {
        lastToken += 1
        return lastToken
    }

    /// Events of `token` go to `transport` from now on…
    mutating func own(_ token: UInt64, by transport: any LoopTransport) { owners[token] = transport }
    /// … until it closes the connection.
    mutating func forget(_ token: UInt64) { owners[token] = nil }

    /// The transport that owns `token`.
    func owner(of token: UInt64) -> (any LoopTransport)? { owners[token] }
}
