import Testing
import Positioning
import Numerics
import SextantTestSupport
@testable import Server

/// The feed hub against plain models: the bytes a subscriber gets are whole lines in order, with
/// `# dropped N lines` where its full queue lost lines; its queue (channel lines, replies, snapshot)
/// stays inside the limit whatever it is sent or asks; subscribers of one selection share the bytes.
@Suite struct FeedHubTests {
    /// A `removed` line for tag `T<n>` (short, and its number says where it belongs in the stream).
    static func line(_ n: Int, site: String = "s") -> Output {
        .removed(site: site, tag: "T\(n)", reason: .timeout, time: 1_000 + Int64(n))
    }

    /// Sends what the hub has for `s`, at most `budget` bytes, `step` bytes per send (a small socket).
    @discardableResult
    static func drain(_ hub: FeedHub, _ s: FeedSubscriber, budget: Int = .max, step: Int = .max) -> [UInt8] {
        var out: [UInt8] = []
        while out.count < budget {
            let bytes = hub.pendingBytes(s)
            if bytes.isEmpty { break }
            let n = min(bytes.count, step, budget - out.count)
            out += bytes.prefix(n)
            hub.consumed(s, n)
        }
        return out
    }

    static func tagNumbers(_ text: [UInt8]) -> (numbers: [Int], dropped: Int, other: [String]) {
        var numbers: [Int] = [], dropped = 0, other: [String] = []
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("# dropped "), let n = Int(line.dropFirst(10).prefix { $0 != " " }) {
                dropped += n
            } else if line.hasPrefix("removed,site=s,tag=T"), let n = Int(line.dropFirst(20).prefix { $0 != " " }) {
                numbers.append(n)
            } else {
                other.append(String(line))
            }
        }
        return (numbers, dropped, other)
    }

    /// Publishes, reads in pieces of random sizes and pauses in a fixed pseudo-random order: every line
    /// arrives whole and in order, and the lines received plus those the markers announce are all lines.
    @Test func linesArriveWholeInOrderWithMarkersForTheLost() {
        let hub = FeedHub(limit: 64, policy: .dropOldest, rememberedTags: 0)
        let s = FeedSubscriber(id: 1)
        hub.subscribe(s, to: Subscription(kinds: [.removed]))
        var seed: UInt64 = 42
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        var text: [UInt8] = [], published = 0
        for _ in 0..<1_000 {
            for _ in 0..<next(40) { hub.publish(Self.line(published)); published += 1 }
            if next(4) == 0 { text += Self.drain(hub, s, budget: next(3_000), step: 1 + next(200)) }
        }
        text += Self.drain(hub, s, step: 7)
        let (numbers, dropped, other) = Self.tagNumbers(text)
        #expect(other.isEmpty, "\(other.prefix(3))")
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 })
        #expect(numbers.last == published - 1)
        #expect(numbers.count + dropped == published)
        #expect(dropped > 0)
        #expect(hub.linesDropped == dropped)
    }

    /// A subscriber that never reads: its queue stays within an eighth above the limit, the channel holds no more, and every line beyond is counted as dropped.
    @Test func neverReadingSubscriberIsBounded() {
        let limit = 800
        let hub = FeedHub(limit: limit, policy: .dropOldest, rememberedTags: 0)
        let stalled = FeedSubscriber(id: 1)
        hub.subscribe(stalled, to: .all)
        for n in 0..<20_000 { hub.publish(Self.line(n)) }
        let channel = try! #require(stalled.channel)
        let held = channel.blocks.reduce(0) { $0 + $1.lineCount }
        #expect(stalled.queuedLines <= limit + limit / 8)
        #expect(held <= limit + limit / 16)
        #expect(hub.linesDropped >= 20_000 - limit - limit / 8)
        let (numbers, dropped, _) = Self.tagNumbers(Self.drain(hub, stalled))
        #expect(numbers.count + dropped == 20_000)
        #expect(numbers.last == 19_999)
    }

    /// Two subscribers of the same selection read the same bytes in place: one channel, one copy.
    @Test func oneSelectionSharesOneCopy() {
        let hub = FeedHub(limit: 1_000, policy: .dropOldest, rememberedTags: 0)
        let a = FeedSubscriber(id: 1), b = FeedSubscriber(id: 2), c = FeedSubscriber(id: 3)
        hub.subscribe(a, to: .all)
        hub.subscribe(b, to: .all)
        hub.subscribe(c, to: Subscription(tags: ["T3"]))
        for n in 0..<10 { hub.publish(Self.line(n)) }
        #expect(a.channel === b.channel)
        #expect(a.channel !== c.channel)
        let pa = hub.pendingBytes(a), pb = hub.pendingBytes(b)
        #expect(pa == pb)
        #expect(pa.withUnsafeBufferPointer { $0.baseAddress } == pb.withUnsafeBufferPointer { $0.baseAddress })
        #expect(Self.tagNumbers(Self.drain(hub, c)).numbers == [3])
        #expect(hub.linesQueued == 21)
    }

    /// Replies to a subscriber that never reads stop at its queue limit: 100,000 requests leave its own
    /// bytes within the limit, and the rest are counted as dropped replies (policy drop-oldest) or close
    /// it (policy disconnect).
    @Test func repliesStayInsideTheQueueLimit() {
        let limit = 100
        let hub = FeedHub(limit: limit, policy: .dropOldest, rememberedTags: 0)
        let s = FeedSubscriber(id: 1)
        hub.subscribe(s, to: .all)
        let reply = "# a\n# b\n# c\n"
        var queued = 0
        for _ in 0..<100_000 where hub.reply(s, reply) { queued += 1 }
        #expect(queued == limit / 3)
        #expect(s.queuedLines <= limit)
        #expect(s.own.count <= limit * 4)
        #expect(hub.repliesDropped == 100_000 - limit / 3)
        // The lost replies are announced once the subscriber reads.
        let text = String(decoding: Self.drain(hub, s), as: UTF8.self)
        #expect(text.hasSuffix("# dropped \(3 * (100_000 - limit / 3)) lines\n"))

        let strict = FeedHub(limit: limit, policy: .disconnect, rememberedTags: 0)
        let t = FeedSubscriber(id: 2)
        strict.subscribe(t, to: .all)
        for _ in 0..<1_000 { strict.reply(t, reply) }
        #expect(strict.takeOverflowed().map(\.id) == [2])
    }

    /// The snapshot is encoded a chunk at a time as the subscriber drains: five subscribers that never
    /// read hold a chunk each, whatever the number of tags; one that reads gets every tag, sorted.
    @Test func snapshotIsSentLazily() {
        let hub = FeedHub(limit: 1_000, policy: .dropOldest, rememberedTags: 100_000)
        let tags = 5_000
        for n in 0..<tags { hub.lastPositions.record(Self.position("T\(n)", time: 1)) }
        let stalled = (0..<5).map { FeedSubscriber(id: UInt64($0)) }
        for s in stalled {
            hub.subscribe(s, to: .all)
            _ = hub.pendingBytes(s)          // the transport tries once; the socket takes nothing
            #expect(s.ownPending <= FeedSnapshot.chunkBytes + 512)
            #expect(s.queuedLines <= 1_000)
        }
        // A tag moved after the subscription is not in the snapshot: its newer line follows live.
        let reader = FeedSubscriber(id: 9)
        hub.subscribe(reader, to: Subscription(kinds: [.position]))
        hub.publish(.position(Self.position("T7", time: 2)))
        let lines = String(decoding: Self.drain(hub, reader), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == tags)
        let names = lines.map { $0.split(separator: ",")[2].dropFirst(4).prefix { $0 != " " } }
        #expect(names.last == "T7")
        #expect(Array(names.dropLast()) == (0..<tags).filter { $0 != 7 }.map { "T\($0)" }.sorted().map { Substring($0) })
    }

    /// Tags are forgotten when removed, and by age; at most `capacity` are remembered.
    @Test func lastPositionsAreBounded() {
        let hub = FeedHub(limit: 100, policy: .dropOldest, rememberedTags: 3)
        for (n, time) in [(1, 10), (2, 20), (3, 30), (4, 40)] { hub.publish(.position(Self.position("T\(n)", time: Int64(time)))) }
        #expect(hub.lastPositions.count == 3)
        #expect(hub.lastPositions.refused == 1)
        hub.publish(.removed(site: "s", tag: "T2", reason: .timeout, time: 50))
        #expect(hub.lastPositions.entries.keys.map(\.tag).sorted() == ["T1", "T3"])
        hub.lastPositions.prune(before: 25)
        #expect(hub.lastPositions.entries.keys.map(\.tag) == ["T3"])
    }

    static func position(_ tag: String, time: Int64) -> PositionEstimate {
        PositionEstimate(site: "s", tag: tag, position: Vec3(1, 2, 0), velocity: Vec3(0, 0, 0), covXX: 0.01,
                         covXY: 0, covYY: 0.01, anchors: 4, motion: .stationary, time: time)
    }
}
