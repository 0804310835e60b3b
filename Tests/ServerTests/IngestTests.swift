import Foundation
import Testing
import Positioning
import Wire
import Pipeline
import Numerics
import SextantTestSupport
@testable import Server

@Suite(.serialized) struct IngestTests {
    /// Three lines in two chunks, split at every byte boundary, each from its own source, through the
    /// admission (as a transport hands it each read): every line arrives whole.
    @Test func linesSplitAtEveryByteBoundary() throws {
        let loop = try ServiceLoop(config: ServiceConfig(), sites: [.demoWarehouse], lastPositions: [], history: nil,
                                   logger: .silent)
        let all = demoLines(tags: 1, seconds: 1)
        var ends = all.indices.filter { all[$0] == 10 }
        ends = Array(ends.prefix(3))
        let stream = Array(all[...ends[2]])
        for k in 1..<stream.count {
            let session = loop.admission.makeSession(id: loop.newToken(), peer: "test")
            stream[..<k].withUnsafeBytes { loop.admission.ingest($0, from: session) }
            stream[k...].withUnsafeBytes { loop.admission.ingest($0, from: session) }
            #expect(session.linesIn == 3)
            loop.admission.ended(session)
        }
        let splits = stream.count - 1
        let s = loop.stats()
        #expect(s.linesIn == 3 * splits)
        #expect(s.rejectedTotal == 0)
        #expect(s.eventsApplied == 3 * splits)
        #expect(s.partialLinesDropped == 0)
    }

    /// 16 gateways at once, each with its own tags: every line is counted and applied.
    @Test func manyConcurrentGateways() throws {
        let t = try TestService()
        defer { t.stop() }
        let streams = (0..<16).map { demoLines(tags: 2, seconds: 3, seed: UInt64($0), prefix: "G\($0)-") }
        let expected = streams.reduce(0) { $0 + $1.filter { $0 == 10 }.count }
        let port = t.service.ingestPort
        DispatchQueue.concurrentPerform(iterations: streams.count) { i in
            guard let g = try? Socket.connect(host: "127.0.0.1", port: port) else { return }
            var offset = 0
            while offset < streams[i].count {   // uneven chunks
                let n = min(streams[i].count - offset, 1 + (offset * 7919 + i * 104_729) % 3000)
                try? g.writeAll(Array(streams[i][offset..<(offset + n)]))
                offset += n
            }
        }
        let s = t.waitFor { $0.linesIn >= expected }
        #expect(s.linesIn == expected)
        #expect(s.eventsApplied == expected)
        #expect(s.rejectedTotal == 0)
        #expect(s.ingestConnectionsTotal == 16)
        #expect(s.positionsOut > 0)
    }

    /// A gateway that disconnects mid-line loses that line only.
    @Test func disconnectMidLineLosesOnlyThatLine() throws {
        let t = try TestService()
        defer { t.stop() }
        let lines = demoLines(tags: 1, seconds: 1)
        let second = lines.firstIndex(of: 10)! + 1
        let g = try t.gateway()
        try g.writeAll(Array(lines[..<(second + 20)]))
        g.close()
        let s = t.waitFor { $0.partialLinesDropped >= 1 }
        #expect(s.linesIn == 1)
        #expect(s.eventsApplied == 1)
        #expect(s.partialLinesDropped == 1)
    }

    /// One bad line per reason: each reason's counter reaches 1, and the sender reads a
    /// `# rejected line N: … [key]` reply for each. (`missing_timestamp` cannot happen live: a line
    /// without timestamp gets the receive time, which the last line checks.)
    @Test func everyRejectionReasonReachesTheCounters() throws {
        // More reasons than the default 20 replies a second.
        let t = try TestService { $0.rejectionRepliesPerSecond = 100 }
        defer { t.stop() }
        let ts = " 1700000000000000000"
        let bad: [(String, String)] = [
            ("malformed", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=" + ts),
            ("line_too_long", "ranging,site=demo-warehouse,anchor=U1,tag=T1 x=\"" + String(repeating: "a", count: 70_000) + "\"" + ts),
            ("unknown_measurement", "weather,site=demo-warehouse,tag=T1 temp=3" + ts),
            ("missing_tag", "ranging,site=demo-warehouse,anchor=U1 distance=3" + ts),
            ("missing_field", "motion,site=demo-warehouse,tag=T1 foo=1" + ts),
            ("bad_field_type", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=\"far\"" + ts),
            ("negative_distance", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=-1" + ts),
            ("non_finite", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=1e999" + ts),
            ("absurd_distance", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=5000" + ts),
            ("bad_std", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3,std=0" + ts),
            ("bad_angle", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3,azimuth=9" + ts),
            ("direction_not_unit", "ranging,site=demo-warehouse,anchor=U1,tag=T1 dir_x=1,dir_y=1,dir_z=1" + ts),
            ("no_measurement", "ranging,site=demo-warehouse,anchor=U1,tag=T1 std=0.1" + ts),
            ("bad_value", "ranging,site=demo-warehouse,anchor=U1,tag=T1,tech=wifi distance=3" + ts),
            ("unknown_site", "ranging,site=nowhere,anchor=U1,tag=T1 distance=3" + ts),
            ("unknown_anchor", "ranging,site=demo-warehouse,anchor=Z9,tag=T1 distance=3" + ts),
            ("unsupported_technology", "ranging,site=demo-warehouse,anchor=U1,tag=T1,tech=cs distance=3" + ts),
            ("control_character", "ranging,site=demo-warehouse,anchor=U1,tag=T\u{1B}1 distance=3" + ts),
            ("timestamp_looks_like_us", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 1700000000000000"),
            ("timestamp_looks_like_ms", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 1700000000000"),
            ("timestamp_looks_like_s", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 1700000000"),
            ("timestamp_implausible", "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 12"),
        ]
        let g = try t.gateway()
        var text = bad.map { $0.1 + "\n" }.joined()
        text += "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3\n"   // no timestamp: accepted
        try g.writeAll(Array(text.utf8))
        let s = t.waitFor { $0.linesIn >= bad.count + 1 }
        for (key, _) in bad { #expect(s.rejected[key] == 1, "\(key)") }
        #expect(s.rejectedTotal == bad.count)
        #expect(s.eventsApplied == 1)
        // missing_timestamp cannot happen live (the receive time is the default); the limits' and the
        // tokens' keys are checked in LimitsTests, AuthenticationTests and ClockSkewTests, `late` below;
        // a nanosecond connection has no `timestamp_looks_like_ns` and no `timestamp_out_of_range`
        // (HostileClientTests and HostileLineTests check them with other precisions).
        let keys = Set(RejectReason.allKeys + IngestAdmission.rejectionKeys)
        #expect(Set(bad.map(\.0)).union(["missing_timestamp", "too_many_tags", "site_not_allowed", "rate_limited",
                                             "clock_skew", "late", "timestamp_looks_like_ns",
                                             "timestamp_out_of_range"]) == keys)
        let replies = LineReader(g).lines(timeout: 3) { $0.contains("[timestamp_implausible]") }
        #expect(replies.count == bad.count)
        for (i, (key, _)) in bad.enumerated() {
            #expect(replies.contains { $0.hasPrefix("# rejected line \(i + 1): ") && $0.hasSuffix("[\(key)]") }, "\(key)")
        }
    }

    /// A placed tag's line that arrives more than `maxLateness` (1 s) after a later one of the same tag
    /// is refused as `late`, counted and answered; one 0.5 s late is applied.
    @Test func aLateLineIsRefusedAndAnswered() throws {
        let t = try TestService()
        defer { t.stop() }
        let site = Site.demoWarehouse
        let tag = Vec3(12, 8, site.tagHeight ?? 1)
        let t0: Int64 = 1_700_000_000_000_000_000
        var text = "", lines = 0
        for round in 0..<10 {
            for a in site.anchors where a.technologies.contains(.uwb) {
                text += "ranging,site=\(site.id),anchor=\(a.id),tag=L,tech=uwb distance=\((tag - a.position).norm) "
                    + "\(t0 + Int64(round) * 100_000_000)\n"
                lines += 1
            }
        }
        let last = t0 + 900_000_000
        text += "ranging,site=\(site.id),anchor=U1,tag=L,tech=uwb distance=3 \(last - 2_000_000_000)\n"
        text += "ranging,site=\(site.id),anchor=U1,tag=L,tech=uwb distance=3 \(last - 500_000_000)\n"
        let g = try t.gateway()
        try g.writeAll(Array(text.utf8))
        let expected = lines + 2
        let s = t.waitFor { $0.linesIn >= expected }
        #expect(s.rejected["late"] == 1)
        #expect(s.rejectedTotal == 1)
        #expect(s.eventsApplied == lines + 1)
        let replies = LineReader(g).lines(timeout: 3) { $0.contains("[late]") }
        #expect(replies.contains { $0.hasPrefix("# rejected line \(lines + 1): ") && $0.contains("2.0 s before") })
    }

    /// Replies are rate-limited: a burst of bad lines gives a bounded number of replies and a summary.
    @Test func rejectionRepliesAreRateLimited() throws {
        let t = try TestService { $0.rejectionRepliesPerSecond = 5 }
        defer { t.stop() }
        let g = try t.gateway()
        let started = ContinuousClock.now
        try g.writeAll(Array(String(repeating: "garbage\n", count: 1000).utf8))
        let s = t.waitFor { $0.linesIn >= 1000 }
        #expect(s.rejected["malformed"] == 1000)
        try g.writeAll(Array("still garbage\n".utf8))   // still within the same second: counted only
        _ = t.waitFor { $0.linesIn >= 1001 }
        // The bucket holds 5 replies and refills 5 per second, so a slow run (a loaded machine, a
        // sanitizer) may earn one more per 0.2 s it took; plus one summary line.
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        let replies = LineReader(g).lines(timeout: 0.5)
        #expect(replies.count <= 6 + Int(5 * elapsed), "\(elapsed) s")
        #expect(replies.count >= 5)
    }
}
