/// One HTTP stream (SSE or WebSocket) as the feed hub sees it: a subscriber whose transport is the
/// HTTP thread, reached through its `StreamOutbox`.
///
/// Touched only on the loop thread.
final class HTTPStream: FeedSubscriber {
    let outbox: StreamOutbox
    /// True while a `since=` backfill is being read: live lines wait in the hub's queue until it is in.
    var backfilling: Bool

    init(id: UInt64, outbox: StreamOutbox, backfilling: Bool) {
        self.outbox = outbox
        self.backfilling = backfilling
        super.init(id: id)
        waitingForWritable = backfilling
    }
}

/// The HTTP streams of the service loop, and how to wake the HTTP thread when they got bytes.
///
/// Touched only on the loop thread (`wake` is safe from any thread).
final class HTTPFeed {
    var streams: [UInt64: HTTPStream] = [:]
    /// Wakes the HTTP thread (set when the HTTP port starts).
    var wake: (@Sendable () -> Void)?
    /// True when a stream got bytes this turn.
    var woke = false
    /// Streams closed by the overflow policy `disconnect`.
    var disconnected = 0
}
