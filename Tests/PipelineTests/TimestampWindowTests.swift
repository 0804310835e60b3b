import Testing
import Positioning
import Wire
import Pipeline

/// A sink that refuses events outside `window` (when set) and keeps the refusals and applied times.
private struct WindowSink: LineSink {
    var window: TimestampWindow?
    var refusals: [LineRejection] = []
    var appliedTimes: [Nanoseconds] = []

    func admit(_ event: Event, line: Int, unit: TimestampPrecision) -> LineRejection? {
        guard let window, !window.contains(event.time) else { return nil }
        return window.rejection(line: line, time: event.time)
    }
    mutating func output(_ output: Output) {}
    mutating func applied(_ event: Event) { appliedTimes.append(event.time) }
    mutating func rejected(_ rejection: LineRejection) { refusals.append(rejection) }
}

@Suite struct TimestampWindowTests {
    /// `Pipeline.process` with a window checked by its sink's `admit`: a line outside is refused as
    /// `clock_skew` before the engine applies it, with a message naming the timestamp, the offset and
    /// the limit, and is counted by the caller, not the pipeline; lines inside, and a line without
    /// timestamp (the reference time), are applied; without a check nothing is refused.
    @Test func processRefusesTimestampsOutsideTheWindow() throws {
        let reference = try #require(TimeText.parse("2026-12-01T06:00:00Z"))
        let window = TimestampWindow(reference: reference, ahead: 2_000_000_000, behind: 60_000_000_000)
        let lines = [
            "ranging,site=demo-warehouse,anchor=U1,tag=A distance=3 \(reference + 3_600_000_000_000)",   // 1 h ahead
            "ranging,site=demo-warehouse,anchor=U1,tag=B distance=3 \(reference + 2_000_000_000)",       // at the limit
            "ranging,site=demo-warehouse,anchor=U1,tag=C distance=3",                                     // no timestamp
            "ranging,site=demo-warehouse,anchor=U1,tag=D distance=3 \(reference - 90_250_000_000)",       // 90.25 s behind
            "ranging,site=demo-warehouse,anchor=U1,tag=E distance=3 \(reference - 60_000_000_000)",       // at the limit
        ]
        var pipeline = Pipeline(sites: [.demoWarehouse])
        var splitter = LineSplitter()
        var sink = WindowSink(window: window)
        splitter.feed(Array(lines.joined(separator: "\n").utf8) + [10]) { piece in
            pipeline.process(piece, timestamps: .defaultTo(reference), maxLineLength: 65_536, into: &sink)
        }
        let refusals = sink.refusals, appliedTimes = sink.appliedTimes
        #expect(refusals.map(\.key) == ["clock_skew", "clock_skew"])
        #expect(refusals.first?.message == "line 1: timestamp 2026-12-01T07:00:00.000Z is 3600.0 s ahead of the server's "
                + "clock (limit 2 s); is the gateway's clock set (NTP)?")
        #expect(refusals.last?.message == "line 4: timestamp 2026-12-01T05:58:29.750Z is 90.3 s behind the server's "
                + "clock (limit 60 s); is the gateway's clock set (NTP), or is it sending stored lines?")
        #expect(refusals.map(\.clockOffset) == [3600, -90.25])
        #expect(appliedTimes == [reference + 2_000_000_000, reference, reference - 60_000_000_000])
        #expect(pipeline.eventsApplied == 3)
        #expect(pipeline.rejections.total == 0, "the caller counts its own refusals")

        // No window: the same lines are all applied.
        var unchecked = Pipeline(sites: [.demoWarehouse])
        var s2 = LineSplitter()
        s2.feed(Array(lines.joined(separator: "\n").utf8) + [10]) { piece in
            var none = WindowSink(window: nil)
            unchecked.process(piece, timestamps: .defaultTo(reference), maxLineLength: 65_536, into: &none)
        }
        #expect(unchecked.eventsApplied == lines.count)
        #expect(unchecked.rejections.total == 0)
    }

    /// Limits near the ends of `Int64` saturate instead of overflowing; nil limits accept everything.
    @Test func windowEdges() {
        #expect(TimestampWindow(reference: 1_700_000_000_000_000_000, ahead: .max, behind: nil).contains(.max))
        #expect(TimestampWindow(reference: -1_000, ahead: nil, behind: .max).contains(.min))
        let open = TimestampWindow(reference: 0, ahead: nil, behind: nil)
        #expect(open.contains(.max) && open.contains(.min))
        let tight = TimestampWindow(reference: 100, ahead: 0, behind: 0)
        #expect(tight.contains(100) && !tight.contains(101) && !tight.contains(99))
        // The message of a timestamp far from the reference does not overflow either.
        #expect(TimestampWindow(reference: 1_700_000_000_000_000_000, ahead: 1, behind: 1)
            .rejection(line: 1, time: .min).message.contains(" s behind the server's clock"))
    }
}
