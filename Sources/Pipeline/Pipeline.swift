public import Positioning
public import Wire

/// Bytes of ingest lines in, bytes of output lines out: an `IngestReader`, the `Engine`, and the
/// `OutputEncoder`, with the counters a user needs (lines, positions, rejections by reason).
///
/// One pipeline serves one stream: a replayed file, or (later) the merged stream of a live service.
/// It does no I/O itself: the caller hands it chunks and takes the encoded output.
public struct Pipeline: Sendable {
    public private(set) var engine: Engine
    private var splitter: LineSplitter
    private let decoder = IngestDecoder()
    public let timestamps: TimestampPolicy
    /// Rejections by reason key (decoder and engine reasons together).
    public private(set) var rejections = RejectionCounter(extraKeys: ["unknown_site", "unknown_anchor", "unsupported_technology"])
    /// Events applied to the engine.
    public private(set) var eventsApplied = 0
    public private(set) var positionsOut = 0
    public private(set) var proximityOut = 0
    public private(set) var removedOut = 0
    /// The first rejections, with line numbers, for a user to read (at most `keptRejectionMessages`).
    public private(set) var rejectionMessages: [String] = []
    public var keptRejectionMessages = 20

    /// - Parameters:
    ///   - sites: the site maps.
    ///   - config: engine tuning.
    ///   - timestamps: `.requireTimestamp` for replay.
    public init(sites: [Site], config: EngineConfig = EngineConfig(), timestamps: TimestampPolicy = .requireTimestamp,
                maxLineLength: Int = 65536) {
        engine = Engine(sites: sites, config: config)
        splitter = LineSplitter(maxLineLength: maxLineLength)
        self.timestamps = timestamps
    }

    /// Lines read so far (including comments, blank and rejected lines).
    public var linesRead: Int { splitter.lineCount }

    /// Feeds the next chunk of input; encoded output lines are appended to `output`.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, output: inout [UInt8]) {
        var s = splitter
        s.feed(chunk) { handle($0, output: &output) }
        splitter = s
    }

    /// At the end of the input: processes a last line without a newline.
    public mutating func finish(output: inout [UInt8]) {
        var s = splitter
        s.finish { handle($0, output: &output) }
        splitter = s
    }

    /// Applies one decoded event directly (bypassing the decoder), e.g. from a simulator.
    public mutating func apply(_ event: Event, line: Int = 0, output: inout [UInt8]) {
        var counts = (positions: 0, proximity: 0, removed: 0)
        defer {
            positionsOut += counts.positions; proximityOut += counts.proximity; removedOut += counts.removed
        }
        do {
            try engine.handle(event) { o in
                switch o {
                case .position: counts.positions += 1
                case .proximity: counts.proximity += 1
                case .removed: counts.removed += 1
                }
                OutputEncoder.append(o, to: &output)
            }
            eventsApplied += 1
        } catch {
            reject(key: error.key, message: "line \(line): \(error)")
        }
    }

    private mutating func handle(_ piece: SplitLine, output: inout [UInt8]) {
        switch piece {
        case .tooLong(let number):
            let r = Rejection(line: number, reason: .lineTooLong(limit: splitter.maxLineLength))
            reject(key: r.reason.key, message: r.message)
        case .line(let number, let bytes):
            do {
                if let event = try decoder.decode(bytes, lineNumber: number, timestamps: timestamps) {
                    apply(event, line: number, output: &output)
                }
            } catch {
                reject(key: error.reason.key, message: error.message)
            }
        }
    }

    private mutating func reject(key: String, message: String) {
        rejections.record(key: key)
        if rejectionMessages.count < keptRejectionMessages { rejectionMessages.append(message) }
    }

    /// A multi-line summary: lines read, outputs written, rejections by reason.
    public var summary: String {
        var s = "lines read: \(linesRead), events applied: \(eventsApplied)\n"
        s += "positions: \(positionsOut), proximity: \(proximityOut), removed: \(removedOut)\n"
        let rejected = rejections.counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        s += "rejected: \(rejections.total)"
        if !rejected.isEmpty { s += " (" + rejected.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")" }
        return s
    }
}
