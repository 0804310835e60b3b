public import Positioning

/// A `LineSplitter` and an `IngestDecoder` together: bytes in, events or rejections out. One per ingest
/// connection or file.
public struct IngestReader: Sendable {
    public var splitter: LineSplitter
    public var decoder: IngestDecoder
    /// The Strings of the ids decoded recently.
    private var ids = IdCache()

    /// - Parameters:
    ///   - maxLineLength: longest line accepted, bytes.
    ///   - decoder: the decoder (its limits).
    public init(maxLineLength: Int = 65536, decoder: IngestDecoder = IngestDecoder()) {
        splitter = LineSplitter(maxLineLength: maxLineLength)
        self.decoder = decoder
    }

    /// Feeds the next bytes; calls `body` for every event or rejection they complete, in order.
    /// Blank and comment lines produce nothing.
    /// - Parameters:
    ///   - chunk: the bytes just read.
    ///   - timestamps: the policy for lines without a timestamp.
    ///   - body: receives each decoded event or rejection.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, timestamps: TimestampPolicy,
                              _ body: (Result<Event, Rejection>) throws -> Void) rethrows {
        let decoder = self.decoder, limit = splitter.maxLineLength
        var ids = self.ids
        self.ids = .placeholder   // lent out whole, so that it is not copied on write
        defer { self.ids = ids }
        try splitter.feed(chunk) { try Self.handle($0, decoder, limit, timestamps, &ids, body) }
    }

    /// Feeds bytes held in an array. See `feed(_:timestamps:_:)`.
    public mutating func feed(_ chunk: [UInt8], timestamps: TimestampPolicy,
                              _ body: (Result<Event, Rejection>) throws -> Void) rethrows {
        try chunk.withUnsafeBytes { try feed($0, timestamps: timestamps, body) }
    }

    /// At the end of a file: decodes a final line without `\n`, if any.
    public mutating func finish(timestamps: TimestampPolicy, _ body: (Result<Event, Rejection>) throws -> Void) rethrows {
        let decoder = self.decoder, limit = splitter.maxLineLength
        var ids = self.ids
        self.ids = .placeholder
        defer { self.ids = ids }
        try splitter.finish { try Self.handle($0, decoder, limit, timestamps, &ids, body) }
    }

    /// On a disconnect: drops a partial line. Returns true when one was dropped.
    @discardableResult
    public mutating func discardPartialLine() -> Bool { splitter.discardPartialLine() }

    private static func handle(_ piece: SplitLine, _ decoder: IngestDecoder, _ limit: Int,
                               _ timestamps: TimestampPolicy, _ ids: inout IdCache,
                               _ body: (Result<Event, Rejection>) throws -> Void) rethrows {
        switch piece {
        case .tooLong(let number):
            try body(.failure(Rejection(line: number, reason: .lineTooLong(limit: limit))))
        case .line(let number, let bytes):
            var event: Event?
            do throws(Rejection) {
                try decoder.decode(bytes, lineNumber: number, timestamps: timestamps, ids: &ids) { event = $0 }
            } catch {
                try body(.failure(error))
                return
            }
            if let event { try body(.success(event)) }
        }
    }
}
