/// The HTTP streams on the loop thread: subscribing, flushing into their outboxes, closing.
extension ServiceLoop {
    /// Subscribes a new HTTP stream. With `backfilling`, its live lines wait (in the hub's queue) until
    /// `endBackfill`; its snapshot is skipped, as the backfill replaces it.
    func openStream(id: UInt64, subscription: Subscription, outbox: StreamOutbox, backfilling: Bool) {
        let s = HTTPStream(id: id, outbox: outbox, backfilling: backfilling)
        http.streams[id] = s
        hub.subscribe(s, to: subscription, snapshot: !backfilling)
        if !backfilling { flushStream(s) }
        logger.info("http stream subscribed", ["conn": id, "format": subscription.format.rawValue, "rate": subscription.rate,
                                               "sites": subscription.sites.map { $0.sorted().joined(separator: ",") } ?? "*",
                                               "tags": subscription.tags.map { $0.sorted().joined(separator: ",") } ?? "*"])
    }

    /// The backfill of stream `id` is in its outbox: its live lines may follow.
    func endBackfill(id: UInt64) {
        guard let s = http.streams[id] else { return }
        s.backfilling = false
        s.waitingForWritable = false
        flushStream(s)
    }

    /// The HTTP thread took what the outbox held: send more.
    func resumeStream(id: UInt64) {
        guard let s = http.streams[id], !s.backfilling else { return }
        s.waitingForWritable = false
        flushStream(s)
    }

    /// The client went away.
    func closeStream(id: UInt64) {
        guard let s = http.streams.removeValue(forKey: id) else { return }
        hub.unsubscribe(s)
        logger.info("http stream closed", ["conn": id, "queued": s.linesQueued, "dropped": s.linesDropped])
    }

    /// Moves what the hub has for a stream into its outbox, up to the outbox's capacity; the rest waits
    /// in the hub's queue (its limit and overflow policy apply) until the HTTP thread took it.
    func flushStream(_ s: HTTPStream) {
        guard !s.backfilling else { return }
        while s.outbox.hasRoom {
            let bytes = hub.pendingBytes(s)
            if bytes.isEmpty { return }
            guard s.outbox.append(bytes) else { closeStream(id: s.id); return }
            hub.consumed(s, bytes.count)
            http.woke = true
        }
        if !hub.pendingBytes(s).isEmpty {
            s.waitingForWritable = true
            s.outbox.markWantsMore()
        }
    }

    /// End of turn: a stream the hub closed for overflow (policy disconnect) is told so and let go.
    func streamOverflowed(_ sub: FeedSubscriber) {
        guard let s = http.streams[sub.id] else { return }
        http.disconnected += 1
        logger.warning("http stream too slow; disconnected", ["conn": s.id, "queued": s.queuedLines])
        s.outbox.close("too slow: the queue of \(config.feedQueueLines) lines overflowed")
        http.woke = true
        closeStream(id: s.id)
    }

    /// End of turn: flush a stream with new lines, and wake the HTTP thread if any got bytes.
    func flushStreamIfHTTP(_ sub: FeedSubscriber) {
        if let s = http.streams[sub.id] { flushStream(s) }
    }

    func wakeHTTPIfNeeded() {
        guard http.woke else { return }
        http.woke = false
        http.wake?()
    }
}
