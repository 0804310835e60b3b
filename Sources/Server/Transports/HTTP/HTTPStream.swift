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

