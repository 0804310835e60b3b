/// The shared queue of one selection of feed lines (the subscribers with the same subscription).
///
/// Each line is encoded once and copied once into the channel's newest `FeedBlock`; every subscriber
/// reads it from there through its own cursor (`FeedSubscriber.block`, `.offset`). The channel keeps the
/// newest `limit` lines at least (in whole blocks) and lets go of a block once every subscriber has
/// passed it or it is older than that: a subscriber still behind a block let go of has overflowed, and
/// loses the block's lines (policy drop-oldest: counted, and `# dropped N lines` is sent where they
/// were) or is closed (policy disconnect). So a subscriber that never reads costs nothing per line.
final class FeedChannel {
    /// The selection: kinds as bits, sites (nil: all) and tags (nil: all), as `wants` checks them.
    let kindMask: UInt8
    let sites: Set<String>?
    let subscription: Subscription
    /// Lines a subscriber may be behind before its queue overflows (`ServiceConfig.feedQueueLines`).
    let limit: Int
    /// A block is full at `blockBytes` or `blockLines`, whichever comes first; with a sixteenth of the
    /// limit per block, a subscriber's queue is at most an eighth above the limit (the block it holds and
    /// the partly full oldest block the channel holds).
    static let blockBytes = 64 * 1024
    let blockLines: Int
    /// Held blocks, oldest first; the last one is the newest (the one lines go to).
    private(set) var blocks: [FeedBlock] = []
    /// The number of the next line appended.
    private(set) var nextLine = 0
    var subscribers: [FeedSubscriber] = []
    /// True while the hub lists the channel for the next flush (lines were appended).
    var dirty = false
    /// What `rate=N` holds back (nil: every line goes at once).
    let conflator: FeedConflator?

    init(subscription: Subscription, limit: Int) {
        self.subscription = subscription
        kindMask = subscription.kinds.map { $0.reduce(0) { $0 | $1.bit } } ?? Subscription.Kind.allBits
        sites = subscription.sites
        self.limit = limit
        blockLines = max(1, limit / 16)
        conflator = subscription.rate > 0 ? FeedConflator(rate: subscription.rate) : nil
    }

    /// True when the channel takes `kind` lines of `site`, whatever the tag (the hub finds channels that
    /// name tags by the tag).
    @inline(__always)
    func wants(site: String, kind: Subscription.Kind) -> Bool {
        kindMask & kind.bit != 0 && (sites?.contains(site) ?? true)
    }

    /// The newest block, started if there is none or it is full.
    /// - Parameter overflowed: receives the subscribers left behind a block let go of.
    func newest(policy: OverflowPolicy, overflowed: (FeedSubscriber, Int) -> Void) -> FeedBlock {
        if let last = blocks.last, last.lineCount < blockLines, last.bytes.count < Self.blockBytes { return last }
        let block = FeedBlock(firstLine: nextLine, capacity: min(Self.blockBytes + 512, blockLines * 256))
        blocks.last?.next = block
        blocks.append(block)
        trim(policy: policy, overflowed: overflowed)
        return block
    }

    /// Appends one encoded line (with its `\n`).
    func append(_ line: UnsafeRawBufferPointer, policy: OverflowPolicy, overflowed: (FeedSubscriber, Int) -> Void) {
        newest(policy: policy, overflowed: overflowed).append(line)
        nextLine += 1
    }

    /// Lets go of the oldest blocks that every subscriber has passed or that are more than `limit`
    /// lines old; each subscriber behind such a block is handed to `overflowed` with its line count.
    private func trim(policy: OverflowPolicy, overflowed: (FeedSubscriber, Int) -> Void) {
        while blocks.count > 1 {
            let oldest = blocks[0]
            let old = nextLine - oldest.endLine >= limit
            if !old && subscribers.contains(where: { ($0.block?.firstLine ?? .min) <= oldest.firstLine }) { return }
            if old {
                for s in subscribers where s.block.map({ $0.firstLine < oldest.firstLine }) ?? true {
                    overflowed(s, oldest.lineCount)
                }
            }
            oldest.trimmed = true
            oldest.next = nil
            blocks.removeFirst()
        }
    }

    /// The block a subscriber reads after `block`: the next one, or the oldest held when the next was let go.
    func block(after block: FeedBlock) -> FeedBlock? {
        if let n = block.next, !n.trimmed { return n }
        guard block.trimmed, let first = blocks.first, first !== block, first.firstLine >= block.endLine else { return nil }
        return first
    }

    /// Lines a subscriber at `block`, byte `offset` has not yet been handed.
    func linesBehind(block: FeedBlock, offset: Int) -> Int {
        let position = block.firstLine + block.linesBefore(offset: offset)
        guard block.trimmed else { return nextLine - position }
        // The rest of the block it holds, then what the channel still holds after it.
        let after = blocks.first.map { max($0.firstLine, block.endLine) } ?? nextLine
        return block.endLine - position + nextLine - after
    }
}
