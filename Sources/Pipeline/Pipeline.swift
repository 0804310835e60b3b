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
    private var decoder = IngestDecoder()
    /// The Strings of the ids `feed` has decoded recently.
    private var ids = IdCache()
    public let timestamps: TimestampPolicy
    /// The engine's tuning, for the trackers of sites replaced while running.
    private let engineConfig: EngineConfig
    /// Rejections by reason key (decoder and engine reasons together).
    public private(set) var rejections = RejectionCounter(extraKeys: Pipeline.rejectionKeys)
    /// Events applied to the engine.
    public private(set) var eventsApplied = 0
    public private(set) var positionsOut = 0
    public private(set) var proximityOut = 0
    public private(set) var removedOut = 0
    /// Zone enter and exit lines.
    public private(set) var zoneEventsOut = 0
    /// The first rejections, with line numbers, for a user to read (at most `keptRejectionMessages`).
    public private(set) var rejectionMessages: [String] = []
    public var keptRejectionMessages = 20

    /// - Parameters:
    ///   - sites: the site maps.
    ///   - config: engine tuning.
    ///   - timestamps: `.requireTimestamp` for replay.
    ///   - precision: the unit of the lines' timestamps (`feed`; `process` takes its own).
    public init(sites: [Site], config: EngineConfig = EngineConfig(), timestamps: TimestampPolicy = .requireTimestamp,
                maxLineLength: Int = 65536, precision: TimestampPrecision = .ns) {
        decoder.precision = precision
        engine = Engine(sites: sites, config: config)
        engineConfig = config
        splitter = LineSplitter(maxLineLength: maxLineLength)
        self.timestamps = timestamps
    }

    /// The rejection keys the pipeline counts beyond the decoder's: the engine's. (A caller's own
    /// checks, such as the live service's, count their keys themselves.)
    public static let rejectionKeys = EngineRejection.allKeys

    /// Lines read so far (including comments, blank and rejected lines).
    public var linesRead: Int { splitter.lineCount }

    /// Feeds the next chunk of input; encoded output lines are appended to `output`.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, output: inout [UInt8]) {
        var s = splitter
        var ids = takeIds()
        s.feed(chunk) { handle($0, ids: &ids, output: &output) }
        splitter = s
        self.ids = ids
    }

    /// At the end of the input: processes a last line without a newline.
    public mutating func finish(output: inout [UInt8]) {
        var s = splitter
        var ids = takeIds()
        s.finish { handle($0, ids: &ids, output: &output) }
        splitter = s
        self.ids = ids
    }

    /// The id cache, moved out (a placeholder left in its place) so that it is lent to the decoder
    /// while `handle` mutates self, without being copied.
    private mutating func takeIds() -> IdCache {
        let taken = ids
        ids = .placeholder
        return taken
    }

    /// Applies one decoded event directly (bypassing the decoder), e.g. from a simulator.
    public mutating func apply(_ event: Event, line: Int = 0, output: inout [UInt8]) {
        _ = apply(event, line: line) { OutputEncoder.append($0, to: &output) }
    }

    /// Applies one decoded event; each output goes to `emit` unencoded (the live service routes them).
    /// - Returns: the rejection when the engine refused the event (it is also counted here).
    public mutating func apply(_ event: Event, line: Int = 0, emit: (Output) -> Void) -> LineRejection? {
        do {
            try applyCounted(event, emit: emit)
            return nil
        } catch {
            return reject(LineRejection(line: line, key: error.key, message: "line \(line): \(error)"))
        }
    }

    /// Applies one event and counts it and its outputs; the caller counts a refusal.
    @inline(__always)
    private mutating func applyCounted(_ event: Event, emit: (Output) -> Void) throws(EngineRejection) {
        var counts = (positions: 0, proximity: 0, removed: 0, zone: 0)
        defer {
            positionsOut += counts.positions; proximityOut += counts.proximity; removedOut += counts.removed
            zoneEventsOut += counts.zone
        }
        try engine.handle(event) { o in
            switch o {
            case .position: counts.positions += 1
            case .proximity: counts.proximity += 1
            case .removed: counts.removed += 1
            case .zone: counts.zone += 1
            }
            emit(o)
        }
        eventsApplied += 1
    }

    /// Handles one piece from a splitter the caller owns (one per connection in the live service):
    /// decodes it with `timestamps` (ids through the pipeline's `IdCache`), lets the sink's `admit`
    /// refuse the decoded event, applies it, and reports everything that became of the line to `sink`.
    /// - Parameters:
    ///   - piece: a line (or a too-long report) from a `LineSplitter`.
    ///   - timestamps: the policy for a line without timestamp (the live service: `.defaultTo(now)`).
    ///   - maxLineLength: the splitter's limit, for the message of a too-long line.
    ///   - precision: the unit of the line's timestamp (nil: the pipeline's).
    ///   - sink: gets each output of the engine in order, then `applied` with the event; or one
    ///     `rejected` (counted here unless its own `admit` refused the event). Nothing for a blank or
    ///     comment line.
    public mutating func process<Sink: LineSink>(_ piece: SplitLine, timestamps: TimestampPolicy, maxLineLength: Int,
                                                 precision: TimestampPrecision? = nil, into sink: inout Sink) {
        switch piece {
        case .tooLong(let number):
            let r = Rejection(line: number, reason: .lineTooLong(limit: maxLineLength))
            sink.rejected(reject(LineRejection(line: number, key: r.reason.key, message: r.message)))
        case .line(let number, let bytes):
            var ids = takeIds()
            defer { self.ids = ids }
            var decoder = self.decoder   // a copy: the closure below mutates self
            if let precision { decoder.precision = precision }
            let unit = decoder.precision
            do throws(Rejection) {
                try decoder.decode(bytes, lineNumber: number, timestamps: timestamps, ids: &ids) { event in
                    if let refused = sink.admit(event, line: number, unit: unit) {
                        sink.rejected(refused)
                        return
                    }
                    do throws(EngineRejection) {
                        try applyCounted(event) { sink.output($0) }
                        sink.applied(event)
                    } catch {
                        sink.rejected(reject(LineRejection(line: number, key: error.key, message: "line \(number): \(error)")))
                    }
                }
            } catch {
                sink.rejected(reject(LineRejection(line: number, key: error.reason.key, message: error.message)))
            }
        }
    }

    /// Puts a site map in place while running (see `Engine.replace(site:config:)`).
    public mutating func replace(site: Site) -> Engine.SiteChange {
        engine.replace(site: site, config: engineConfig)
    }

    /// Restores one site's learned biases and anchor health (see `Engine.restore(site:learners:)`).
    @discardableResult
    public mutating func restore(site: String, learners: LearnerSnapshot) -> Bool {
        engine.restore(site: site, learners: learners)
    }

    /// Starts one site's tracker over, silently (see `Engine.reset(site:config:)`).
    public mutating func reset(site: String) { engine.reset(site: site, config: engineConfig) }

    /// Advances the engine's clock (removing silent tags); outputs go to `emit` and are counted.
    public mutating func advance(to now: Nanoseconds, emit: (Output) -> Void) {
        engine.advance(to: now) { o in
            if case .removed = o { removedOut += 1 }
            if case .zone = o { zoneEventsOut += 1 }
            emit(o)
        }
    }

    /// What `process` does for `feed`, with the id cache lent once per chunk and no site check or
    /// `applied` closure. It repeats `process`'s decode-and-apply on purpose: one shared function for
    /// both is not inlined and costs 58 instructions per ranging line (+0.9 %) on the throughput
    /// stream.
    private mutating func handle(_ piece: SplitLine, ids: inout IdCache, output: inout [UInt8]) {
        guard case .line(let number, let bytes) = piece else {
            var none = DiscardingSink()
            process(piece, timestamps: timestamps, maxLineLength: splitter.maxLineLength, into: &none)
            return
        }
        let decoder = self.decoder   // a copy: the closure below mutates self
        do throws(Rejection) {
            try decoder.decode(bytes, lineNumber: number, timestamps: timestamps, ids: &ids) { event in
                do throws(EngineRejection) {
                    try applyCounted(event) { OutputEncoder.append($0, to: &output) }
                } catch {
                    reject(LineRejection(line: number, key: error.key, message: "line \(number): \(error)"))
                }
            }
        } catch {
            reject(LineRejection(line: number, key: error.reason.key, message: error.message))
        }
    }

    /// Counts one of the pipeline's own rejections. - Returns: `r`.
    @discardableResult
    private mutating func reject(_ r: LineRejection) -> LineRejection {
        rejections.record(key: r.key)
        if rejectionMessages.count < keptRejectionMessages { rejectionMessages.append(r.message) }
        return r
    }

    /// A multi-line summary: lines read, outputs written, rejections by reason.
    public var summary: String {
        var s = "lines read: \(linesRead), events applied: \(eventsApplied)\n"
        s += "positions: \(positionsOut), proximity: \(proximityOut), removed: \(removedOut), zone events: \(zoneEventsOut)\n"
        let rejected = rejections.counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        s += "rejected: \(rejections.total)"
        if !rejected.isEmpty { s += " (" + rejected.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")" }
        return s
    }
}

/// Where `Pipeline.process` reports what became of a line: the caller's checks on the decoded event
/// first, then each output of the engine and the applied event, or the line's rejection.
public protocol LineSink {
    /// The caller's own checks on a decoded event before the engine sees it (the live service: a
    /// token's sites, its clock window), given the line number and the timestamp unit. A refusal
    /// returned here goes to `rejected` and is the caller's to count. Default: every event passes.
    mutating func admit(_ event: Event, line: Int, unit: TimestampPrecision) -> LineRejection?
    /// An output of the engine, in order (a line may cause several, before its `applied`).
    mutating func output(_ output: Output)
    /// The engine applied the line's event. Default: nothing.
    mutating func applied(_ event: Event)
    /// The line was refused.
    mutating func rejected(_ rejection: LineRejection)
}

extension LineSink {
    public mutating func admit(_ event: Event, line: Int, unit: TimestampPrecision) -> LineRejection? { nil }
    public mutating func applied(_ event: Event) {}
}

/// A sink that keeps nothing (the pipeline still counts its outputs and rejections).
public struct DiscardingSink: LineSink {
    public init() {}
    public mutating func output(_ output: Output) {}
    public mutating func rejected(_ rejection: LineRejection) {}
}

/// A line the pipeline refused: where, under which counter key, and why.
public struct LineRejection: Error, Sendable, Equatable {
    /// 1-based line number in its stream (or connection).
    public var line: Int
    /// The stable snake_case reason key, e.g. `negative_distance` or `unknown_site`.
    public var key: String
    /// A message a user can act on, with the line number.
    public var message: String
    /// For `clock_skew`: how far the line's timestamp is ahead of the server's clock, seconds
    /// (negative: behind); nil for the other keys.
    public var clockOffset: Double?

    public init(line: Int, key: String, message: String, clockOffset: Double? = nil) {
        self.line = line; self.key = key; self.message = message; self.clockOffset = clockOffset
    }
}
