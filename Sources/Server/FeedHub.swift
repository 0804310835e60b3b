import Positioning
import Wire

/// Every feed client's lines, whatever its transport: subscriptions, routing by site and tag, the
/// bounded queue of each client, the snapshot of last positions, the overflow policy, and what to send
/// next. A transport (the TCP feed) subscribes its clients, asks `pendingBytes` for what to send, and
/// reports what went with `consumed`.
///
/// Subscribers with the same subscription share one `FeedChannel`: a line is encoded once and copied
/// once per channel, never per subscriber; each subscriber reads it in place through its cursor. What a
/// client causes for itself alone (a `#stats` or `#anchors` reply, a `# dropped N lines` marker, its
/// snapshot) goes to its own bytes, inside the same queue limit.
///
/// Touched only on the loop thread.
final class FeedHub {
    /// Lines one subscriber may have waiting (`ServiceConfig.feedQueueLines`), and what overflow does.
    let limit: Int
    let policy: OverflowPolicy
    /// The last position of each tag, for snapshots.
    var lastPositions: LastPositions
    private var channels: [Subscription: FeedChannel] = [:]
    /// Channels that take every tag, and those that name tags, by tag.
    private var channelsForAnyTag: [FeedChannel] = []
    private var channelsByTag: [String: [FeedChannel]] = [:]
    /// Channels with lines appended, and subscribers with bytes of their own, since the last flush.
    var dirtyChannels: [FeedChannel] = []
    var dirtySubscribers: [FeedSubscriber] = []
    /// Longest time a line may wait for its send, nanoseconds (`ServiceConfig.feedFlushHold`; 0: none).
    /// See FeedHub+Flush.swift.
    let flushHold: Int64
    /// When the oldest line not yet flushed was queued (monotonic ns), while `dirtyChannels` is not empty.
    var heldSince: Int64 = 0
    /// The monotonic clock, nanoseconds (read once per flush, when the first line waits).
    let clock: () -> Int64
    /// Subscribers whose queue overflowed under the `disconnect` policy, for the transport to close.
    private(set) var overflowed: [FeedSubscriber] = []
    /// One encoding buffer for every line, and one for its JSON form (HTTP streams).
    private var scratch: [UInt8] = []
    private var jsonScratch: [UInt8] = []
    /// Channels with conflated lines held back (`rate=N`), for `releaseConflated`.
    var heldChannels: [FeedChannel] = []
    /// Counters: lines queued (one per subscriber per line), lost to full queues, replies refused.
    private(set) var linesQueued = 0
    private(set) var linesDropped = 0
    private(set) var repliesDropped = 0
    /// Sends that took bytes (for comparing the fan-out with a relay that makes as many).
    private(set) var sends = 0
    /// Consumers of every output that are not feed subscribers (MQTT out); see FeedHub+Observers.swift.
    var observers: [any FeedOutputObserver] = []

    /// A subscriber holds its channel and a channel its subscribers; a hub that goes away with
    /// subscribers still in it (a test, or a loop stopped with clients connected) lets them go.
    deinit {
        for ch in channels.values {
            for s in ch.subscribers {
                s.channel = nil
                s.block = nil
                s.snapshot = nil
            }
            ch.subscribers.removeAll()
        }
    }

    /// - Parameters:
    ///   - limit: lines one subscriber may have waiting; `policy`: what overflow does.
    ///   - rememberedTags: last positions kept for snapshots.
    ///   - flushHold: longest time a line waits for its send, nanoseconds (0: sent at the next flush).
    ///   - clock: monotonic nanoseconds (tests pass their own).
    init(limit: Int, policy: OverflowPolicy, rememberedTags: Int, flushHold: Int64 = 0,
         clock: @escaping () -> Int64 = ServiceClock.monotonicNow) {
        self.limit = limit
        self.policy = policy
        self.flushHold = flushHold
        self.clock = clock
        lastPositions = LastPositions(capacity: rememberedTags)
        scratch.reserveCapacity(512)
    }

    /// Subscribers now.
    var subscriberCount: Int { channels.values.reduce(0) { $0 + $1.subscribers.count } }

    // MARK: lines in

    /// Remembers a position (forgets a removed tag) and queues the output's line for every subscriber
    /// that selects it, encoding it once.
    func publish(_ output: Output) {
        let site: String, tag: String, kind: Subscription.Kind
        switch output {
        case .position(let p):
            site = p.site; tag = p.tag; kind = .position
            lastPositions.record(p)
        case .proximity(let s, let t, _, _, _, _):
            site = s; tag = t; kind = .proximity
        case .removed(let s, let t, _, _):
            site = s; tag = t; kind = .removed
            lastPositions.forget(site: s, tag: t)
        case .zone(let s, let t, _, _, _):
            site = s; tag = t; kind = .zone
        }
        for o in observers { o.observe(output) }
        guard !channels.isEmpty else { return }
        var encoded = false, encodedJSON = false
        func offer(_ ch: FeedChannel) {
            guard ch.wants(site: site, kind: kind) else { return }   // the tag: by the list it is in
            if ch.conflator != nil, conflate(ch, output, kind: kind) { return }
            if ch.subscription.format == .json {
                if !encodedJSON {
                    jsonScratch.removeAll(keepingCapacity: true)
                    guard FeedFormat.json.append(output, to: &jsonScratch) else { return }
                    encodedJSON = true
                }
                jsonScratch.withUnsafeBytes { ch.append($0, policy: policy, overflowed: overflow) }
            } else {
                if !encoded {
                    scratch.removeAll(keepingCapacity: true)
                    guard OutputEncoder.append(output, to: &scratch) else { return }
                    encoded = true
                }
                scratch.withUnsafeBytes { ch.append($0, policy: policy, overflowed: overflow) }
            }
            linesQueued += ch.subscribers.count
            markDirty(ch)
        }
        for ch in channelsForAnyTag { offer(ch) }
        if !channelsByTag.isEmpty, let chosen = channelsByTag[tag] {
            for ch in chosen { offer(ch) }
        }
    }

    /// A subscriber left behind lines its channel let go of: `n` lines lost, or closed by the policy.
    func overflow(_ s: FeedSubscriber, _ n: Int) {
        switch policy {
        case .dropOldest:
            s.droppedSinceMarker += n
            s.linesDropped += n
            linesDropped += n
        case .disconnect:
            if !s.overflowed { s.overflowed = true; overflowed.append(s) }
        }
    }

    /// The subscribers closed by the `disconnect` policy since the last call.
    func takeOverflowed() -> [FeedSubscriber] {
        defer { overflowed.removeAll() }
        return overflowed
    }

    // MARK: subscribers

    /// Starts a subscriber's live lines from now, after the last position of each selected tag.
    /// - Returns: the number of remembered tags its snapshot looks through (0: none).
    /// - Parameter snapshot: false for a subscriber that changes its subscription (it had one).
    @discardableResult
    func subscribe(_ s: FeedSubscriber, to subscription: Subscription, snapshot: Bool = true) -> Int {
        detach(s)
        s.subscription = subscription
        let ch = channel(for: subscription)
        s.channel = ch
        s.block = ch.newest(policy: policy, overflowed: overflow)
        s.offset = s.block!.bytes.count
        s.atLineStart = true
        s.joinedLine = ch.nextLine
        ch.subscribers.append(s)
        guard snapshot, subscription.kinds?.contains(.position) ?? true, lastPositions.count > 0 else { return 0 }
        s.snapshot = FeedSnapshot(keys: lastPositions.sortedKeys(), before: lastPositions.updates)
        markDirty(s)
        return s.snapshot!.keys.count
    }

    /// Stops a subscriber's live lines, keeping whole lines: the rest of a line half sent goes first, as
    /// its own bytes (before a last `# error` line, or another subscription's lines).
    func detach(_ s: FeedSubscriber) {
        guard s.channel != nil else { return }
        if !s.atLineStart, !s.sendingOwn, let b = s.block {
            let end = Int(b.lineEnds[b.linesBefore(offset: s.offset)])
            s.own.insert(contentsOf: b.bytes[s.offset..<end], at: s.ownSent)
            s.atLineStart = true
        }
        unsubscribe(s)
    }

    /// Takes a subscriber out (it is closing or subscribing again).
    func unsubscribe(_ s: FeedSubscriber) {
        guard let ch = s.channel else { return }
        s.linesQueued += ch.nextLine - s.joinedLine
        ch.subscribers.removeAll { $0 === s }
        s.channel = nil
        s.block = nil
        s.snapshot = nil
        guard ch.subscribers.isEmpty else { return }
        channels[ch.subscription] = nil
        if let tags = ch.subscription.tags {
            for t in tags {
                channelsByTag[t]?.removeAll { $0 === ch }
                if channelsByTag[t]?.isEmpty == true { channelsByTag[t] = nil }
            }
        } else {
            channelsForAnyTag.removeAll { $0 === ch }
        }
    }

    private func channel(for subscription: Subscription) -> FeedChannel {
        if let ch = channels[subscription] { return ch }
        let ch = FeedChannel(subscription: subscription, limit: limit)
        channels[subscription] = ch
        if let tags = subscription.tags {
            for t in tags { channelsByTag[t, default: []].append(ch) }
        } else {
            channelsForAnyTag.append(ch)
        }
        return ch
    }

    // MARK: replies

    /// True when `lines` more lines fit in the subscriber's queue.
    func hasRoom(_ s: FeedSubscriber, lines: Int) -> Bool {
        s.queuedLines + lines <= limit
    }

    /// Queues a reply for one subscriber, inside its queue limit: when it does not fit, the reply is
    /// dropped (policy drop-oldest: counted, and `# dropped N lines` is sent in its place) or the
    /// subscriber is closed (policy disconnect). `force` (a last `# error` line before closing) skips
    /// the limit. - Returns: true when queued.
    @discardableResult
    func reply(_ s: FeedSubscriber, _ text: String, force: Bool = false) -> Bool {
        let lines = text.utf8.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
        if !force && !hasRoom(s, lines: lines) {
            refuseReply(s, lines: lines)
            return false
        }
        s.own.append(contentsOf: text.utf8)
        s.ownLines += lines
        s.linesQueued += lines
        linesQueued += lines
        markDirty(s)
        return true
    }

    /// Counts a reply that did not fit (see `reply`).
    func refuseReply(_ s: FeedSubscriber, lines: Int) {
        switch policy {
        case .dropOldest:
            s.repliesDropped += 1
            repliesDropped += 1
            overflow(s, lines)
        case .disconnect:
            overflow(s, lines)
        }
    }

    /// Counts lines queued for subscribers outside `publish` (conflated lines released later).
    func countQueued(_ n: Int) { linesQueued += n }

    /// Lists a channel with new lines for the next flush (the first one starts the hold).
    func markDirty(_ ch: FeedChannel) {
        guard !ch.dirty else { return }
        if dirtyChannels.isEmpty { heldSince = clock() }
        ch.dirty = true
        dirtyChannels.append(ch)
    }

    func markDirty(_ s: FeedSubscriber) {
        if !s.dirty { s.dirty = true; dirtySubscribers.append(s) }
    }

    // MARK: sending

    /// The next bytes to send to a subscriber (empty: nothing now). Its own bytes go at a line start of
    /// the channel; the snapshot before any live line; a `# dropped N lines` marker where lines were lost.
    func pendingBytes(_ s: FeedSubscriber) -> ArraySlice<UInt8> {
        while true {
            if s.atLineStart {
                if s.ownSent < s.own.count { s.sendingOwn = true; return s.own[s.ownSent...] }
                if !s.own.isEmpty {
                    if s.own.capacity > 4 * FeedSnapshot.chunkBytes { s.own = [] } else { s.own.removeAll(keepingCapacity: true) }
                    s.ownSent = 0
                    s.ownLines = 0
                }
                if s.droppedSinceMarker > 0 {
                    s.own.append(contentsOf: "# dropped \(s.droppedSinceMarker) lines\n".utf8)
                    s.droppedSinceMarker = 0
                    continue
                }
                if s.snapshot != nil {
                    encodeSnapshotChunk(s)
                    if !s.own.isEmpty { continue }
                }
            }
            guard let ch = s.channel, let b = s.block else { return [] }
            if s.offset < b.bytes.count { s.sendingOwn = false; return b.bytes[s.offset...] }
            guard let next = ch.block(after: b) else { return [] }
            s.block = next
            s.offset = 0
            s.atLineStart = true
        }
    }

    /// Records that `n` bytes of the last `pendingBytes(s)` were sent.
    func consumed(_ s: FeedSubscriber, _ n: Int) {
        sends += 1
        if s.sendingOwn {
            s.ownSent += n
        } else if let b = s.block {
            s.offset += n
            s.atLineStart = s.offset == b.bytes.count || b.isLineEnd(s.offset)
        }
    }

    /// Encodes the next chunk of a subscriber's snapshot into its own bytes.
    private func encodeSnapshotChunk(_ s: FeedSubscriber) {
        guard var snap = s.snapshot else { return }
        s.snapshot = nil
        while !snap.isDone && s.own.count < FeedSnapshot.chunkBytes {
            let key = snap.keys[snap.index]
            snap.index += 1
            guard let e = lastPositions.entries[key], e.update <= snap.before,
                  s.subscription.matches(site: key.site, tag: key.tag, kind: .position),
                  s.subscription.format.append(.position(e.estimate), to: &s.own) else { continue }
            s.ownLines += 1
            snap.lines += 1
        }
        s.linesQueued += snap.lines - s.snapshotLinesCounted
        linesQueued += snap.lines - s.snapshotLinesCounted
        s.snapshotLinesCounted = snap.lines
        if !snap.isDone { s.snapshot = snap }
    }
}
