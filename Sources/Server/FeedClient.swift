/// One feed connection, owned by the event loop (never touched by another thread).
final class FeedClient {
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

    let id: UInt64
    let socket: Socket
    /// `address:port` of the client.
    let peer: String
    var phase: Phase
    /// The token the client authenticated with (nil: none needed).
    var access: AccessToken?
    var subscription = Subscription.all {
        didSet {
            kindMask = subscription.kinds.map { $0.reduce(0) { $0 | $1.bit } } ?? Subscription.Kind.allBits
            sites = subscription.sites
        }
    }
    /// The subscription's kinds as bits, and its sites, as `wants` reads them.
    private var kindMask = Subscription.Kind.allBits
    private var sites: Set<String>?
    var queue = FeedQueue()
    /// Lines queued by the snapshot, allowed on top of the queue limit.
    var snapshotAllowance = 0
    /// Bytes of the client's request line, until its newline.
    var input: [UInt8] = []
    /// True while write interest is registered (the socket was full).
    var waitingForWritable = false
    /// True when lines were queued since the last flush.
    var dirty = false
    /// Lines sent or queued, and dropped, for this client.
    var linesQueued = 0
    var linesDropped = 0

    init(id: UInt64, socket: Socket, peer: String, phase: Phase) {
        self.id = id
        self.socket = socket
        self.peer = peer
        self.phase = phase
    }

    /// The deadline of the current waiting phase (authentication or subscription), if any.
    var deadline: Int64? {
        switch phase {
        case .awaitingAuth(let d), .awaitingSubscription(let d): d
        case .active, .closingAfterFlush: nil
        }
    }

    /// True when the subscription takes `kind` lines of `site`, whatever the tag: the live fan-out
    /// checks the tag by where it found the client (`ServiceLoop.feedsByTag`). Reads two stored fields
    /// in place, where `subscription.matches` copied the three sets: retains and releases per client
    /// per line, which with 100 dashboards add up (the fan-out was about a tenth of the loop's time
    /// under `scripts/reliability load`).
    @inline(__always)
    func wants(site: String, kind: Subscription.Kind) -> Bool {
        kindMask & kind.bit != 0 && (sites?.contains(site) ?? true)
    }

    /// Queues a live line. - Returns: false when the queue is full and the policy is to disconnect.
    func enqueue(_ line: [UInt8], limit: Int, policy: OverflowPolicy) -> Bool {
        if queue.count >= limit + snapshotAllowance {
            switch policy {
            case .disconnect: return false
            case .dropOldest:
                queue.dropOldest()
                linesDropped += 1
                if snapshotAllowance > 0 { snapshotAllowance -= 1 }
            }
        }
        queue.append(line)
        linesQueued += 1
        dirty = true
        return true
    }

    /// Sends as much as the socket takes. - Returns: `.blocked` when the socket is full.
    func flush() throws(SystemError) -> FlushOutcome {
        dirty = false
        while true {
            let bytes = queue.pendingBytes()
            if bytes.isEmpty { return .done }
            let result = try Syscall.send(socket.fd, bytes)
            switch result {
            case .done(let n): queue.consumed(n)
            case .wouldBlock: return .blocked
            }
        }
    }
}

/// What a flush achieved.
enum FlushOutcome {
    case done, blocked
}
