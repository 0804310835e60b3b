/// The last positions a new subscriber gets before its live lines, sent lazily: a chunk is encoded only
/// when the subscriber has sent the previous one, so a subscriber that never reads holds one chunk,
/// whatever the number of tags remembered.
///
/// It walks the keys remembered when it subscribed (sorted by site, then tag); a tag forgotten since is
/// skipped, and so is a tag whose position changed since: that newer position is already in the
/// subscriber's live lines, which follow the snapshot.
struct FeedSnapshot {
    /// The remembered keys at subscription (shared with other snapshots taken before a change).
    let keys: [TagKey]
    /// The next key to consider.
    var index = 0
    /// `LastPositions` update number at subscription: newer entries are skipped.
    let before: UInt64
    /// Lines sent so far.
    var lines = 0
    /// Bytes encoded per chunk.
    static let chunkBytes = 64 * 1024

    var isDone: Bool { index >= keys.count }
}
