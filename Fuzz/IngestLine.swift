// libFuzzer target: the ingest path of the live service, bytes to outputs.
//
// Input layout: byte 0 picks the splitter's maximum line length (8…516 bytes, or 64 KiB when ≥ 128),
// byte 1 seeds the chunk sizes (1…64 bytes), the rest is the stream. The stream is split twice, in one
// piece and in chunks, and both must give the same lines; each line then goes through
// `Pipeline.process` exactly as `IngestAdmission.ingest` sends it (receive time for lines without one),
// and every output is encoded. An applied line must also parse with the general `ParsedLine` parser,
// and decode to the same event without the pipeline's id cache.
import Pipeline
import Positioning
import Wire

private let sites = [Site.demoWarehouse]

/// Encodes each output and keeps the applied event.
private struct EncodingSink: LineSink {
    var encoded: [UInt8] = []
    var applied: Event?
    mutating func output(_ output: Output) { OutputEncoder.append(output, to: &encoded) }
    mutating func applied(_ event: Event) { applied = event }
    mutating func rejected(_ rejection: LineRejection) {}
}
private let receiveTime: Nanoseconds = 1_700_000_000_000_000_000

private enum Piece: Equatable {
    case line(Int, [UInt8])
    case tooLong(Int)

    init(_ split: SplitLine) {
        switch split {
        case .line(let n, let bytes): self = .line(n, Array(bytes))
        case .tooLong(let n): self = .tooLong(n)
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIngestLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let maxLineLength = data[0] < 128 ? 8 + Int(data[0]) * 4 : 65536
    var seed = UInt64(data[1]) &+ 0x9E37_79B9_7F4A_7C15
    let stream = UnsafeRawBufferPointer(start: data + 2, count: size - 2)

    var whole = LineSplitter(maxLineLength: maxLineLength)
    var expected: [Piece] = []
    whole.feed(stream) { expected.append(Piece($0)) }
    whole.finish { expected.append(Piece($0)) }

    var splitter = LineSplitter(maxLineLength: maxLineLength)
    var pipeline = Pipeline(sites: sites, timestamps: .defaultTo(receiveTime), maxLineLength: maxLineLength)
    var got: [Piece] = []
    var encoded: [UInt8] = []
    func handle(_ piece: SplitLine) {
        got.append(Piece(piece))
        var sink = EncodingSink()
        pipeline.process(piece, timestamps: .defaultTo(receiveTime), maxLineLength: maxLineLength, into: &sink)
        encoded += sink.encoded
        let applied = sink.applied
        if let applied, case .line(let number, let bytes) = piece {
            guard (try? ParsedLine.parse(bytes)) != nil else {
                fatalError("the ingest decoder accepted a line that ParsedLine refuses")
            }
            // The pipeline decodes through its IdCache; a decoder without one must give the same event.
            let fresh = try? IngestDecoder().decode(bytes, lineNumber: number, timestamps: .defaultTo(receiveTime))
            guard fresh == applied else { fatalError("the id cache changed an event") }
        }
        if encoded.count > 1 << 20 { encoded.removeAll(keepingCapacity: true) }
    }
    var offset = 0
    while offset < stream.count {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let length = min(Int(seed >> 58) + 1, stream.count - offset)
        splitter.feed(UnsafeRawBufferPointer(rebasing: stream[offset..<offset + length]), handle)
        offset += length
    }
    splitter.finish(handle)
    if got != expected { fatalError("chunked splitting differs from splitting the whole stream") }
    if splitter.lineCount != whole.lineCount { fatalError("line counts differ") }
    pipeline.advance(to: receiveTime + 60_000_000_000) { OutputEncoder.append($0, to: &encoded) }
    return 0
}
