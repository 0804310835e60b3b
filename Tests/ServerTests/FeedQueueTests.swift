import Testing
@testable import Server

/// The feed queue's ring against a plain model (an array of lines and a drop count), and the fan-out's
/// subscription check against `Subscription.matches`.
@Suite struct FeedQueueTests {
    /// Appends, drops and partial sends in a fixed pseudo-random order, wrapping the ring and growing it
    /// while wrapped; the bytes sent are the model's bytes (a marker may only move to a gather's start).
    @Test func ringKeepsOrderAcrossWrapsAndGrowth() {
        var q = FeedQueue()
        var sentText: [UInt8] = []
        var expected: [[UInt8]] = []   // lines in order, markers as lines
        var pendingDrops = 0
        var live: [[UInt8]] = []
        var seed: UInt64 = 12345
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        var number = 0
        for _ in 0..<20_000 {
            switch next(10) {
            case 0...5:
                let line = Array("line \(number)\n".utf8)
                number += 1
                q.append(line)
                live.append(line)
            case 6, 7:
                if !live.isEmpty {
                    let dropped = q.dropOldest()
                    #expect(dropped)
                    live.removeFirst()
                    pendingDrops += 1
                } else {
                    let dropped = q.dropOldest()
                    #expect(!dropped)
                }
            default:
                // Send everything pending (gathers of whole lines; the marker leads a gather).
                while true {
                    let bytes = q.pendingBytes()
                    if bytes.isEmpty { break }
                    let n = min(bytes.count, 1 + next(300))
                    sentText += bytes.prefix(n)
                    q.consumed(n)
                }
                if pendingDrops > 0 { expected.append(Array("# dropped \(pendingDrops) lines\n".utf8)); pendingDrops = 0 }
                expected += live
                live.removeAll()
            }
            #expect(q.count == live.count)
        }
        #expect(sentText == expected.flatMap { $0 })
    }

    /// A full queue that drops its oldest line for each new one, many times round its ring, still sends
    /// the newest lines in order after one marker with the total dropped.
    @Test func fullQueueDroppingOldestSendsTheNewestLines() {
        var q = FeedQueue()
        for i in 0..<100 { q.append(Array("line \(i)\n".utf8)) }
        for i in 100..<10_000 {
            q.dropOldest()
            q.append(Array("line \(i)\n".utf8))
        }
        #expect(q.count == 100)
        var text: [UInt8] = []
        while true {
            let bytes = q.pendingBytes()
            if bytes.isEmpty { break }
            text += bytes
            q.consumed(bytes.count)
        }
        let expected = "# dropped 9900 lines\n" + (9900..<10_000).map { "line \($0)\n" }.joined()
        #expect(String(decoding: text, as: UTF8.self) == expected)
        #expect(q.isEmpty)
    }

    /// `FeedClient.wants` (kinds and sites; the tag is implied by the fan-out list) agrees with
    /// `Subscription.matches` for every subscription and line that the fan-out would offer.
    @Test func wantsAgreesWithMatches() throws {
        let subscriptions = ["", "subscribe kinds=position", "subscribe sites=a kinds=zone,removed", "subscribe sites=a,b",
                             "subscribe tags=T1 kinds=proximity", "subscribe sites=b tags=T1,T2"]
        let client = FeedClient(id: 1, socket: Socket(fd: -1), peer: "test", phase: .active)
        for text in subscriptions {
            let s = try Subscription.parse(text)
            client.subscription = s
            for site in ["a", "b", "c"] {
                for tag in ["T1", "T2", "T3"] where s.tags?.contains(tag) ?? true {
                    for kind in Subscription.Kind.allCases {
                        #expect(client.wants(site: site, kind: kind) == s.matches(site: site, tag: tag, kind: kind),
                                "\(text) \(site) \(tag) \(kind)")
                    }
                }
            }
        }
    }
}
