import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

/// A ranging line of the demo warehouse, stamped `time` (nil: no timestamp).
private func ranging(_ tag: String, _ time: Int64?) -> String {
    "ranging,site=demo-warehouse,anchor=U1,tag=\(tag) distance=3" + (time.map { " \($0)" } ?? "") + "\n"
}

/// The number between `before` and `after` in `text`, e.g. the offset of a `clock_skew` message.
private func number(in text: String, between before: String, and after: String) -> Double? {
    guard let a = text.range(of: before), let b = text.range(of: after, range: a.upperBound..<text.endIndex) else {
        return nil
    }
    return Double(text[a.upperBound..<b.lowerBound])
}

private let hour: Int64 = 3_600_000_000_000

@Suite(.serialized) struct ClockSkewTests {
    /// With the defaults (2 s ahead, no limit behind): a line an hour ahead is refused, counted, answered
    /// and logged once per connection; a line 1 s ahead, one without timestamp and one from 2023 are
    /// applied, and the connection goes on.
    @Test("a line an hour ahead is rejected as clock_skew, counted, answered and logged once per connection")
    func aheadIsRejected() throws {
        let t = try TestService()
        let log = t.log
        defer { t.stop() }
        let now = ServiceClock.wallNow()
        let g = try t.gateway()
        var text = ranging("A", now + hour)                        // line 1: refused
        text += ranging("A", now + hour + 100_000_000)            // line 2: refused, not logged again
        text += ranging("B", now + 1_000_000_000)                 // line 3: 1 s ahead, within 2 s
        text += ranging("C", nil)                                 // line 4: the receive time
        text += ranging("D", 1_700_000_000_000_000_000)           // line 5: 2023; no limit behind
        text += ranging("A", now)                                 // line 6: the connection goes on
        try g.writeAll(Array(text.utf8))
        let s = t.waitFor { $0.linesIn >= 6 }
        #expect(s.rejected["clock_skew"] == 2)
        #expect(s.rejectedTotal == 2)
        #expect(s.eventsApplied == 4)

        let replies = LineReader(g).lines(timeout: 3) { $0.hasPrefix("# rejected line 2:") }
        #expect(replies.count == 2)
        let first = replies.first ?? ""
        let stamp = TimeText.iso8601(now + hour, fractionDigits: 3)
        #expect(first.hasPrefix("# rejected line 1: timestamp \(stamp) is "), "\(first)")
        #expect(first.hasSuffix(" s ahead of the server's clock (limit 2 s); is the gateway's clock set (NTP)? [clock_skew]"),
                "\(first)")
        // An hour, less the few milliseconds the line took to arrive (rounded to 0.1 s); 10 s of slack
        // for a loaded machine.
        let offset = number(in: first, between: "\(stamp) is ", and: " s ahead") ?? 0
        #expect(offset > 3590 && offset <= 3600, "\(offset)")

        let stats = Dictionary(uniqueKeysWithValues: ServiceStats.parse(
            commentLines: try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort)))
        #expect(stats["rejected_clock_skew"] == "2")

        // One warning for the connection, however many lines it had refused.
        func warnings() -> [String] { log.all.filter { $0.contains("gateway clock skew") } }
        #expect(warnings().count == 1)
        let warning = warnings().first ?? ""
        #expect(warning.contains("level=warn"))
        #expect(warning.contains("peer=127.0.0.1"))
        #expect(warning.contains("limit_s=2.0"))
        let logged = number(in: warning, between: "offset_s=", and: " ") ?? 0
        #expect(logged > 3590 && logged <= 3600, "\(warning)")
        // A second connection gets its own warning.
        let g2 = try t.gateway()
        try g2.writeAll(Array(ranging("E", ServiceClock.wallNow() + hour).utf8))
        #expect(t.waitFor { $0.rejected["clock_skew"] == 3 }.rejected["clock_skew"] == 3)
        log.waitFor("gateway clock skew", count: 2)
        #expect(warnings().count == 2)
        #expect(warnings().last?.contains("conn=") == true && warnings().last != warning)
    }

    /// The failure this guards against: a line an hour ahead moves its tag's filter into the future,
    /// after which the tag's correct lines are older than the filter and give no positions. Refused,
    /// it leaves the tag alone.
    @Test("a tag heard by a gateway an hour ahead is still positioned from the other lines")
    func skewedLineDoesNotStallTheTag() throws {
        let t = try TestService()
        defer { t.stop() }
        let stream = demoLines(tags: 1, seconds: 3)   // stamped from 2023: accepted with no limit behind
        let text = String(decoding: stream, as: UTF8.self)
        let tagStart = try #require(text.range(of: ",tag=")).upperBound
        let tag = String(text[tagStart...].prefix { $0 != " " && $0 != "," })
        let poison = "ranging,site=demo-warehouse,anchor=U1,tag=\(tag) distance=3 \(ServiceClock.wallNow() + hour)\n"
        let g = try t.gateway()
        try g.writeAll(Array(poison.utf8) + stream)
        let count = stream.filter { $0 == 10 }.count
        let s = t.waitFor { $0.linesIn >= count + 1 }
        #expect(s.rejected["clock_skew"] == 1)
        #expect(s.eventsApplied == count)
        #expect(s.positionsOut > 0)
    }

    @Test("maxClockAhead 0 turns the check off: a line an hour ahead is applied")
    func aheadLimitZeroAccepts() throws {
        let t = try TestService { $0.maxClockAhead = 0 }
        defer { t.stop() }
        try t.gateway().writeAll(Array(ranging("A", ServiceClock.wallNow() + hour).utf8))
        let s = t.waitFor { $0.linesIn >= 1 && $0.eventsApplied >= 1 }
        #expect(s.eventsApplied == 1)
        #expect(s.rejectedTotal == 0)
    }

    @Test("maxClockBehind, when set, rejects a line older than it as clock_skew; recent and unstamped lines pass")
    func behindLimit() throws {
        let t = try TestService { $0.maxClockBehind = 60 }
        defer { t.stop() }
        let old: Int64 = 1_700_000_000_000_000_000
        let g = try t.gateway()
        let text = ranging("A", old) + ranging("B", ServiceClock.wallNow() - 1_000_000_000) + ranging("C", nil)
        try g.writeAll(Array(text.utf8))
        let s = t.waitFor { $0.linesIn >= 3 }
        #expect(s.rejected["clock_skew"] == 1)
        #expect(s.eventsApplied == 2)
        let reply = LineReader(g).lines(timeout: 3) { $0.contains("[clock_skew]") }
        let line = reply.last ?? ""
        #expect(line.hasPrefix("# rejected line 1: timestamp 2023-11-14T22:13:20.000Z is "), "\(line)")
        #expect(line.hasSuffix(" s behind the server's clock (limit 60 s); is the gateway's clock set (NTP), "
                               + "or is it sending stored lines? [clock_skew]"), "\(line)")
    }

    @Test("maxClockAhead and maxClockBehind are read from JSON; negative and non-numeric values are refused by name")
    func configuration() throws {
        var c = ServiceConfig()
        #expect(c.maxClockAhead == 2 && c.maxClockBehind == 0)
        try c.apply(json: Array(#"{"maxClockAhead": 0.5, "maxClockBehind": 86400}"#.utf8))
        #expect(c.maxClockAhead == 0.5)
        #expect(c.maxClockBehind == 86_400)
        for (text, key) in [(#"{"maxClockAhead": -1}"#, "maxClockAhead"), (#"{"maxClockBehind": -0.1}"#, "maxClockBehind"),
                            (#"{"maxClockAhead": "2s"}"#, "maxClockAhead"), (#"{"maxClockBehind": null}"#, "maxClockBehind")] {
            var c = ServiceConfig()
            #expect(throws: ConfigError.self, "\(text)") { try c.apply(json: Array(text.utf8)) }
            do { try c.apply(json: Array(text.utf8)) } catch { #expect(error.key == key, "\(text)") }
        }
        var infinite = ServiceConfig()
        infinite.maxClockBehind = .infinity
        #expect(throws: ConfigError(key: "maxClockBehind", message: "must be between 0 and 1000000000 seconds (0: no limit)")) {
            try infinite.validate()
        }
        // The window the service applies: none when both are off; a huge limit saturates, not traps.
        var off = ServiceConfig()
        off.maxClockAhead = 0
        #expect(off.timestampWindow(reference: 0) == nil)
        var huge = ServiceConfig()
        huge.maxClockAhead = 1e300
        let w = try #require(huge.timestampWindow(reference: 1_700_000_000_000_000_000))
        #expect(w.contains(.max) && w.contains(.min))
        let d = try #require(ServiceConfig().timestampWindow(reference: 1_000_000_000_000))
        #expect(d.ahead == 2_000_000_000 && d.behind == nil)
    }
}
