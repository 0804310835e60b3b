// libFuzzer target: the whole path, decoder, engine and encoder, driven by the bytes as events.
//
// The IngestLine target mutates text, where a timestamp such as -9223372036854775808 is out of reach;
// this one builds the lines from fields the fuzzer picks, so times at the ends of Int64, jumps between
// them and every precision reach the engine. Input layout: byte 0 picks the precision (bits 0-1) and
// the service's clock-ahead limit (bit 2: none or 2 s); then records of 12 bytes:
//   0: kind (ranging, ranging with std and tech, motion, removed, session, a comment `#precision`)
//   1: anchor (one of the site's, or an unknown one), 2: tag (one of 8, or one with a control byte)
//   3-4: distance in centimetres, 5: std (a table with the limits and beyond)
//   6: timestamp mode (raw 8 bytes, special values, the last time plus a small step, no timestamp)
//   7: motion / removal / session state, 8-11 (and 4-11 for raw times): the timestamp's bytes.
// Each line goes through `Pipeline.feed` (replay) and `Pipeline.process` with the service's window and
// plausibility checks as its `admit`; every output must encode to a line `ParsedLine` reads; the clock is then
// advanced to every time seen, as the service's idle sweep does, and the anchors reported.
import Pipeline
import Positioning
import Wire

private let site = Site.demoWarehouse

/// The service's checks in its order (`EventChecks`): plausibility, then the clock window; outputs
/// encoded, applied times kept.
private struct ServiceLikeSink: LineSink {
    let window: TimestampWindow
    let plausible: PlausibleTimestamps
    var out: [UInt8] = []
    var times: [Nanoseconds] = []

    func admit(_ event: Event, line: Int, unit: TimestampPrecision) -> LineRejection? {
        if !plausible.contains(event.time) { return plausible.rejection(line: line, time: event.time, precision: unit) }
        if !window.contains(event.time) { return window.rejection(line: line, time: event.time) }
        return nil
    }
    mutating func output(_ output: Output) { OutputEncoder.append(output, to: &out) }
    mutating func applied(_ event: Event) { times.append(event.time) }
    mutating func rejected(_ rejection: LineRejection) {}
}
private let receiveTime: Nanoseconds = 1_700_000_000_000_000_000
private let specialTimes: [Int64] = [.min, .min + 1, -7_500_000_000_000_000_000, -1, 0, 1, 1_700_000_000_000,
                                     1_700_000_000_000_000, receiveTime, receiveTime + 3_600_000_000_000,
                                     4_102_444_800_000_000_000, 9_223_372_036_854_775_000, .max - 1, .max]
private let stds: [String] = ["1e-320", "1e-300", "0.0001", "0.05", "1000", "1e308", "0", "-1", "nan"]
private let tags = ["T0", "T1", "T2", "T3", "T4", "T5", "T\u{0}6", "T\r7"]
private let precisions: [TimestampPrecision] = [.ns, .us, .ms, .s]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let precision = precisions[Int(data[0] & 3)]
    let ahead: Nanoseconds? = data[0] & 4 != 0 ? 2_000_000_000 : nil
    var replay = Pipeline(sites: [site], timestamps: .requireTimestamp, precision: precision)
    var live = Pipeline(sites: [site], timestamps: .defaultTo(receiveTime))
    let window = TimestampWindow(reference: receiveTime, ahead: ahead, behind: nil)
    let plausible = PlausibleTimestamps(reference: receiveTime)
    var out: [UInt8] = []
    var times: [Nanoseconds] = [receiveTime]
    var last: Int64 = receiveTime
    func word(_ at: Int, _ count: Int) -> UInt64 {
        var w: UInt64 = 0
        for k in 0..<count { w = w << 8 | UInt64(data[at + k]) }
        return w
    }
    var i = 1
    var number = 0
    while i + 12 <= size {
        let kind = data[i] % 6
        let anchor = Int(data[i + 1]) % (site.anchors.count + 1)
        let anchorID = anchor < site.anchors.count ? site.anchors[anchor].id : "X9"
        let tag = tags[Int(data[i + 2]) % tags.count]
        let distance = Double(word(i + 3, 2)) / 100
        let std = stds[Int(data[i + 5]) % stds.count]
        var stamp: Int64?
        switch data[i + 6] % 4 {
        case 0: stamp = Int64(bitPattern: word(i + 4, 8))
        case 1: stamp = specialTimes[Int(data[i + 8]) % specialTimes.count]
        case 2: stamp = last &+ Int64(Int16(bitPattern: UInt16(word(i + 8, 2)))) &* 1_000_000
        default: stamp = nil
        }
        if let stamp { last = stamp }
        let state = data[i + 7]
        var line: String
        switch kind {
        case 0: line = "ranging,site=\(site.id),anchor=\(anchorID),tag=\(tag) distance=\(distance)"
        case 1: line = "ranging,site=\(site.id),anchor=\(anchorID),tag=\(tag),tech=\(state & 1 == 0 ? "uwb" : "cs") distance=\(distance),std=\(std)"
        case 2: line = "motion,site=\(site.id),tag=\(tag) state=\"\(["moving", "stationary", "unknown"][Int(state) % 3])\""
        case 3: line = "removed,site=\(site.id),anchor=\(anchorID),tag=\(tag) reason=\"\(["timeout", "peer_ended"][Int(state) % 2])\""
        case 4: line = "session,site=\(site.id),anchor=\(anchorID)" + (state & 4 == 0 ? ",tag=\(tag)" : "")
            + " state=\"\(["suspended", "resumed", "invalidated"][Int(state) % 3])\""
        default: line = "#precision \(precisions[Int(state) % 4].rawValue)"
        }
        if let stamp, kind < 5 { line += " \(stamp)" }
        line += "\n"
        number += 1
        let bytes = Array(line.utf8)
        bytes.withUnsafeBytes { raw in
            replay.feed(raw, output: &out)
            var sink = ServiceLikeSink(window: window, plausible: plausible)
            live.process(.line(number: number, bytes: UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - 1)])),
                         timestamps: .defaultTo(receiveTime), maxLineLength: 65536, precision: precision, into: &sink)
            out += sink.out
            times += sink.times
        }
        i += 12
    }
    replay.finish(output: &out)
    // The service's idle sweep: the newest time plus the time since, saturated; then every time seen.
    for t in times + [last, times.max()!.saturatingAdd(1_000_000_000), .min, .max] {
        live.advance(to: t) { OutputEncoder.append($0, to: &out) }
        replay.advance(to: t) { OutputEncoder.append($0, to: &out) }
    }
    for r in live.engine.anchorReports() + replay.engine.anchorReports() {
        OutputEncoder.appendAnchorHealth(r, silentSeconds: receiveTime.seconds(since: r.health.lastHeard),
                                         time: r.health.lastHeard, to: &out)
    }
    // Every output line is line protocol.
    var start = 0
    for (k, b) in out.enumerated() where b == 10 {
        let text = Array(out[start..<k])
        guard (try? ParsedLine.parse(text)) != nil else {
            fatalError("an output line does not parse: \(String(decoding: text, as: UTF8.self))")
        }
        start = k + 1
    }
    return 0
}
