/// The HTTP streams (SSE and WebSocket) on the loop thread: feed-hub subscribers whose bytes go to
/// their `StreamOutbox`, from which the HTTP thread writes them. REST requests need no transport: they
/// run as `ServiceLoop.submit` commands. It also releases the lines `rate=N` held back (`FeedHub`'s
/// conflation, which only these streams use).
///
/// Threading invariant: touched only on the loop thread; the HTTP side holds the reference only to
/// pass it to `ServiceLoop.submit` commands, which is why it may be `@unchecked Sendable`.
final class HTTPTransport: LoopTransport, @unchecked Sendable {
    unowned let loop: ServiceLoop
    let hub: FeedHub
    /// Wakes the HTTP thread (lws) after stream `id` got bytes; nil: to look at every stream. Any thread.
    let wake: @Sendable (_ id: UInt64?) -> Void
    private(set) var streams: [UInt64: HTTPStream] = [:]
    /// Streams closed by the overflow policy `disconnect`.
    private(set) var disconnected = 0

    init(loop: ServiceLoop, hub: FeedHub, wake: @escaping @Sendable (_ id: UInt64?) -> Void) {
        self.loop = loop; self.hub = hub; self.wake = wake
    }

    // MARK: LoopTransport

    func handle(token: UInt64, events: UInt32) {}   // no descriptor of its own: lws polls on its thread
    var nextDeadline: Int64? { hub.nextConflationDue }
    func timers(now: Int64) { hub.releaseConflated(now: now) }
    func stopAccepting() {}
    var openConnections: Int { streams.count }

    func flush(_ subscriber: FeedSubscriber) {
        if let s = streams[subscriber.id] { flushStream(s) }
    }

    /// A stream the hub closed for overflow (policy disconnect) is told so and let go.
    func overflowed(_ subscriber: FeedSubscriber) {
        guard let s = streams[subscriber.id] else { return }
        disconnected += 1
        loop.logger.warning("http stream too slow; disconnected", ["conn": s.id, "queued": s.queuedLines])
        s.outbox.close("too slow: the queue of \(loop.config.feedQueueLines) lines overflowed")
        close(id: s.id)
        wake(nil)
    }

    func closeAll() {
        for id in Array(streams.keys) { close(id: id) }
    }

    // MARK: streams

    /// Subscribes a new stream. With `backfilling`, its live lines wait (in the hub's queue) until
    /// `endBackfill`; its snapshot is skipped, as the backfill replaces it.
    func open(id: UInt64, subscription: Subscription, outbox: StreamOutbox, backfilling: Bool) {
        let s = HTTPStream(id: id, outbox: outbox, backfilling: backfilling)
        streams[id] = s
        loop.own(id, by: self)
        hub.subscribe(s, to: subscription, snapshot: !backfilling)
        if !backfilling { flushStream(s) }
        loop.logger.info("http stream subscribed", ["conn": id, "format": subscription.format.rawValue, "rate": subscription.rate,
                                                    "sites": subscription.sites.map { $0.sorted().joined(separator: ",") } ?? "*",
                                                    "tags": subscription.tags.map { $0.sorted().joined(separator: ",") } ?? "*"])
    }

    /// The backfill of stream `id` is in its outbox: its live lines may follow.
    func endBackfill(id: UInt64) {
        guard let s = streams[id] else { return }
        s.backfilling = false
        s.waitingForWritable = false
        flushStream(s)
    }

    /// The HTTP thread took what the outbox held: send more.
    func resume(id: UInt64) {
        guard let s = streams[id], !s.backfilling else { return }
        s.waitingForWritable = false
        flushStream(s)
    }

    /// The client went away (or the stream was closed here).
    func close(id: UInt64) {
        guard let s = streams.removeValue(forKey: id) else { return }
        hub.unsubscribe(s)
        loop.forget(id)
        loop.logger.info("http stream closed", ["conn": id, "queued": s.linesQueued, "dropped": s.linesDropped])
    }

    /// Moves what the hub has for a stream into its outbox, up to the outbox's capacity; the rest waits
    /// in the hub's queue (its limit and overflow policy apply) until the HTTP thread took it. The HTTP
    /// thread is woken for the stream when its outbox was empty: so it lists each stream at most once
    /// between two writes of it.
    func flushStream(_ s: HTTPStream) {
        guard !s.backfilling else { return }
        var first = false
        defer { if first { wake(s.id) } }
        while s.outbox.hasRoom {
            let bytes = hub.pendingBytes(s)
            if bytes.isEmpty { return }
            switch s.outbox.append(bytes) {
            case .gone: close(id: s.id); return
            case .first: first = true
            case .more: break
            }
            hub.consumed(s, bytes.count)
        }
        if !hub.pendingBytes(s).isEmpty {
            s.waitingForWritable = true
            s.outbox.markWantsMore()
        }
    }
}
