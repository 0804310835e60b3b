/// One TCP feed connection, owned by the event loop (never touched by another thread): the socket and
/// the request protocol on top of what `FeedHub` keeps for every subscriber.
final class FeedClient: FeedSubscriber {
    /// Where the client is in its life.
    enum Phase: Equatable {
        /// Connected to a port with tokens; waits for `auth SECRET` until `deadline` (monotonic ns).
        case awaitingAuth(deadline: Int64)
        /// Connected; waits for a subscription line until `deadline` (monotonic ns).
        case awaitingSubscription(deadline: Int64)
        /// Receiving live lines.
        case active
        /// Sends what is queued, then closes (after a `#stats` request or a refused subscription).
        case closingAfterFlush
    }

    let socket: Socket
    /// `address:port` of the client.
    let peer: String
    var phase: Phase
    /// The token the client authenticated with (nil: none needed).
    var access: AccessToken?
    /// Bytes of the client's request line, until its newline.
    var input: [UInt8] = []
    /// True when the client got everything because it sent no subscription line in time: a
    /// subscription line that arrives later replaces it.
    var subscribedByDefault = false
    /// True once the client closed its side (it reads on; nothing more is read from it).
    var inputClosed = false

    init(id: UInt64, socket: Socket, peer: String, phase: Phase) {
        self.socket = socket
        self.peer = peer
        self.phase = phase
        super.init(id: id)
    }

    /// The deadline of the current waiting phase (authentication or subscription), if any.
    var deadline: Int64? {
        switch phase {
        case .awaitingAuth(let d), .awaitingSubscription(let d): d
        case .active, .closingAfterFlush: nil
        }
    }

    /// Sends as much as the socket takes. - Returns: `.blocked` when the socket is full.
    func flush(_ hub: FeedHub) throws(SystemError) -> FlushOutcome {
        while true {
            let bytes = hub.pendingBytes(self)
            if bytes.isEmpty { return .done }
            switch try Syscall.send(socket.fd, bytes) {
            case .done(let n): hub.consumed(self, n)
            case .wouldBlock: return .blocked
            }
        }
    }
}

/// What a flush achieved.
enum FlushOutcome {
    case done, blocked
}
