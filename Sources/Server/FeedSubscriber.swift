import Positioning

/// One feed client as the `FeedHub` sees it, whatever its transport: its subscription, its cursor in its
/// channel's shared lines, the bytes meant for it alone (replies, markers, its snapshot) and its counters.
/// A transport subclasses it (`FeedClient`) and sends what `FeedHub.pendingBytes` gives.
///
/// Touched only on the loop thread.
class FeedSubscriber {
    let id: UInt64
    /// The subscription in force (the hub sets it).
    var subscription = Subscription.all
    /// The channel read from while subscribed, and the position in it: a block and a byte offset.
    var channel: FeedChannel?
    var block: FeedBlock?
    var offset = 0
    /// True when `offset` is at the start of a line (own bytes may go in).
    var atLineStart = true
    /// The channel's line number when this subscriber joined it (for `linesQueued`).
    var joinedLine = 0
    /// True when the bytes last handed out were its own ones.
    var sendingOwn = false
    /// True while listed for the next flush.
    var dirty = false
    /// Snapshot lines already added to `linesQueued`.
    var snapshotLinesCounted = 0
    /// Bytes for this subscriber alone, sent at a line boundary of the channel, and how many were sent.
    var own: [UInt8] = []
    var ownSent = 0
    /// Lines in `own` (they count in the queue limit).
    var ownLines = 0
    /// Lines lost to overflow and not yet announced by a `# dropped N lines` marker.
    var droppedSinceMarker = 0
    /// The snapshot still to send (encoded a chunk at a time as the subscriber drains), if any.
    var snapshot: FeedSnapshot?
    /// True while the transport cannot take more (the socket is full); the hub's flush skips it.
    var waitingForWritable = false
    /// True once the queue overflowed under the `disconnect` policy (the transport closes it).
    var overflowed = false
    /// Lines handed to this subscriber's queue, lost from it, and replies refused because it was full.
    var linesQueued = 0
    var linesDropped = 0
    var repliesDropped = 0

    init(id: UInt64) { self.id = id }

    /// Lines waiting for this subscriber: the channel's lines not yet handed to the transport and its own.
    var queuedLines: Int {
        let behind = channel.flatMap { ch in block.map { ch.linesBehind(block: $0, offset: offset) } } ?? 0
        return behind + ownLines
    }

    /// Bytes of its own not yet sent (replies, markers, a snapshot chunk).
    var ownPending: Int { own.count - ownSent }
}
