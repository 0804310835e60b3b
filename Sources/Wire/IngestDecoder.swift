public import Positioning
internal import CScan

/// What to do with an ingest line that has no timestamp. The decoder never reads a clock.
public enum TimestampPolicy: Sendable, Equatable {
    /// Reject with `missingTimestamp` (replaying a recording, where time must come from the data).
    case requireTimestamp
    /// Use this time (Unix nanoseconds), typically the receive time the caller read from its clock.
    case defaultTo(Nanoseconds)
}

/// Decodes ingest lines (`ranging`, `motion`, `removed`, `session`) into validated `Event`s.
///
/// Unknown extra tags and fields are ignored. Numeric fields accept float, integer and unsigned values.
/// The bytes are scanned in place; Strings are made only for the ids and values that go into the event.
public struct IngestDecoder: Sendable {
    /// Largest distance accepted, metres.
    public var maxDistance: Double = 1000
    /// Accepted deviation of the norm of `dir_x, dir_y, dir_z` from 1.
    public var unitTolerance: Double = 0.05
    /// The unit of the lines' timestamps (default nanoseconds).
    public var precision = TimestampPrecision.ns
    /// False to read every line with the general scanner only (the tests compare the two paths).
    var rangingFastPath = true

    public init() {}

    /// Decodes one line.
    /// - Parameters:
    ///   - line: the bytes of the line; a trailing `\n` or `\r\n` is tolerated.
    ///   - lineNumber: 1-based, used in the rejection.
    ///   - timestamps: what to do when the line has no timestamp.
    /// - Returns: the event, or nil for a blank line or a `#` comment.
    /// - Throws: `Rejection` naming the line and the reason.
    public func decode(_ line: UnsafeRawBufferPointer, lineNumber: Int,
                       timestamps: TimestampPolicy) throws(Rejection) -> Event? {
        var event: Event?
        try decode(line, lineNumber: lineNumber, timestamps: timestamps) { event = $0 }
        return event
    }

    /// Decodes one line and hands its event to `body` (not called for a blank line or a comment): the
    /// hot path, which never wraps the event in an optional.
    /// - Parameters:
    ///   - line: the bytes of the line; a trailing `\n` or `\r\n` is tolerated.
    ///   - lineNumber: 1-based, used in the rejection.
    ///   - timestamps: what to do when the line has no timestamp.
    ///   - body: receives the event.
    /// - Throws: `Rejection` naming the line and the reason (`body` is then not called).
    public func decode(_ line: UnsafeRawBufferPointer, lineNumber: Int, timestamps: TimestampPolicy,
                       _ body: (Event) -> Void) throws(Rejection) {
        var fresh = FreshIds()
        do {
            try decodeLine(line, timestamps, &fresh, body)
        } catch {
            throw Rejection(line: lineNumber, reason: error)
        }
    }

    /// Decodes one line as `decode(_:lineNumber:timestamps:_:)` does, taking the Strings of ids it has
    /// seen recently from `ids` instead of making them again.
    /// - Parameters:
    ///   - line: the bytes of the line; a trailing `\n` or `\r\n` is tolerated.
    ///   - lineNumber: 1-based, used in the rejection.
    ///   - timestamps: what to do when the line has no timestamp.
    ///   - ids: the stream's cache of id Strings.
    ///   - body: receives the event.
    /// - Throws: `Rejection` naming the line and the reason (`body` is then not called).
    public func decode(_ line: UnsafeRawBufferPointer, lineNumber: Int, timestamps: TimestampPolicy,
                       ids: inout IdCache, _ body: (Event) -> Void) throws(Rejection) {
        do {
            try decodeLine(line, timestamps, &ids, body)
        } catch {
            throw Rejection(line: lineNumber, reason: error)
        }
    }

    /// Decodes one line held in a String. See `decode(_:lineNumber:timestamps:)`.
    public func decode(_ line: String, lineNumber: Int = 1,
                       timestamps: TimestampPolicy) throws(Rejection) -> Event? {
        var line = line
        let result = line.withUTF8 { bytes in
            Result { () throws(Rejection) in
                try decode(UnsafeRawBufferPointer(bytes), lineNumber: lineNumber, timestamps: timestamps)
            }
        }
        return try result.get()
    }

    private func decodeLine<Ids: IdStrings>(_ b: UnsafeRawBufferPointer, _ policy: TimestampPolicy,
                                            _ ids: inout Ids, _ body: (Event) -> Void) throws(RejectReason) {
        // The usual ranging line, found in one pass (`sextant_scan_ranging`); any other goes on below.
        var usual = sextant_ranging_line()
        if rangingFastPath, let base = b.baseAddress,
           sextant_scan_ranging(base.assumingMemoryBound(to: UInt8.self), b.count, &usual) != 0 {
            body(.ranging(try decodeUsualRanging(usual, b, &ids)))
            return
        }
        var f = IngestFields(bytes: b)
        let outcome: ScanOutcome
        do {
            outcome = try LineScanner.scan(b, into: &f)
        } catch {
            throw .malformed(error)
        }
        guard case .line(let m, let timestamp) = outcome else { return }
        // Content is validated before the timestamp, so a bad value is reported even when replaying.
        func time() throws(RejectReason) -> Nanoseconds {
            switch (timestamp, policy) {
            case (let t?, _): return try precision.nanoseconds(t)
            case (nil, .defaultTo(let now)): return now
            case (nil, .requireTimestamp): throw .missingTimestamp
            }
        }
        // The name's word with its length in the top byte (unused by names of up to 7 bytes).
        let name = m.escape == .none && m.count <= 7 ? b.word(m) | UInt64(m.count) << 56 : 0
        if name == NameWord.ranging | 7 << 56 {
            var ranging = try decodeRanging(&f, &ids)
            ranging.time = try time()
            body(.ranging(consume ranging))   // moved into the event, not copied and destroyed
        } else if name == NameWord.motion | 6 << 56 {
            let site = try f.requiredTag(f.site, "site", &ids), tag = try f.requiredTag(f.tag, "tag", &ids)
            let state: MotionState = try f.enumField(f.state, "state")
            body(.motion(site: site, tag: tag, state: state, time: try time()))
        } else if name == NameWord.removed | 7 << 56 {
            let site = try f.requiredTag(f.site, "site", &ids), anchor = try f.requiredTag(f.anchor, "anchor", &ids)
            let tag = try f.requiredTag(f.tag, "tag", &ids)
            let reason: RemovalReason = try f.enumField(f.reason, "reason")
            body(.removed(site: site, anchor: anchor, tag: tag, reason: reason, time: try time()))
        } else if name == NameWord.session | 7 << 56 {
            let site = try f.requiredTag(f.site, "site", &ids), anchor = try f.requiredTag(f.anchor, "anchor", &ids)
            let tag = try f.tag.map { span throws(RejectReason) in try IngestFields.id(span, "tag", b, &ids) }
            let state: SessionState = try f.enumField(f.state, "state")
            body(.session(site: site, anchor: anchor, tag: tag, state: state, time: try time()))
        } else {
            throw .unknownMeasurement(b.string(m))
        }
    }
}

/// The tags and fields an ingest line may carry, as spans and raw values (last occurrence wins).
struct IngestFields: LineVisitor {
    let bytes: UnsafeRawBufferPointer
    var site: ByteSpan?, anchor: ByteSpan?, tag: ByteSpan?, tech: ByteSpan?
    var distance: RawFieldValue?, std: RawFieldValue?
    var azimuth: RawFieldValue?, elevation: RawFieldValue?
    var dirX: RawFieldValue?, dirY: RawFieldValue?, dirZ: RawFieldValue?
    var state: RawFieldValue?, reason: RawFieldValue?

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    @inline(__always)
    mutating func tag(key: ByteSpan, value: ByteSpan) {
        guard key.escape == .none else { return }   // no name we read holds an escape
        let w = bytes.word(key)
        switch key.count {
        case 3: if w == NameWord.tag { tag = value }
        case 4:
            if w == NameWord.site { site = value }
            else if w == NameWord.tech { tech = value }
        case 6: if w == NameWord.anchor { anchor = value }
        default: break
        }
    }

    @inline(__always)
    mutating func field(key: ByteSpan, value: RawFieldValue) {
        guard key.escape == .none else { return }
        let w = bytes.word(key)
        switch key.count {
        case 3: if w == NameWord.std { std = value }
        case 5:
            if w == NameWord.dirX { dirX = value }
            else if w == NameWord.dirY { dirY = value }
            else if w == NameWord.dirZ { dirZ = value }
            else if w == NameWord.state { state = value }
        case 6: if w == NameWord.reason { reason = value }
        case 7: if w == NameWord.azimuth { azimuth = value }
        case 8: if w == NameWord.distance { distance = value }
        case 9: if w == NameWord.elevatio, bytes[key.start + 8] == 0x6E { elevation = value }   // 'n'
        default: break
        }
    }

    /// The decoded value of a required tag.
    @inline(__always)
    func requiredTag<Ids: IdStrings>(_ span: ByteSpan?, _ name: StaticString, _ ids: inout Ids)
        throws(RejectReason) -> String {
        guard let span else { throw .missingTag("\(name)") }
        return try Self.id(span, name, bytes, &ids)
    }

    /// The id in `span` through `ids`; refused as `control_character` when it holds a control byte.
    @inline(__always)
    static func id<Ids: IdStrings>(_ span: ByteSpan, _ name: StaticString, _ bytes: UnsafeRawBufferPointer,
                                   _ ids: inout Ids) throws(RejectReason) -> String {
        guard let s = ids.string(span, in: bytes) else { throw controlCharacter(span, name, bytes) }
        return s
    }

    /// The refusal of an id with a control byte, out of the hot path.
    @inline(never)
    static func controlCharacter(_ span: ByteSpan, _ name: StaticString, _ bytes: UnsafeRawBufferPointer) -> RejectReason {
        .controlCharacter(name: "\(name)", value: bytes.string(span))
    }

    /// A numeric field as a finite Double, or nil when absent.
    @inline(__always)
    func number(_ value: RawFieldValue?, _ name: String) throws(RejectReason) -> Double? {
        let v: Double
        switch value {
        case nil: return nil
        case .float(let x)?: v = x
        case .integer(let x)?: v = Double(x)
        case .unsigned(let x)?: v = Double(x)
        case let other?: throw .badFieldType(field: name, expected: "a number", found: other.typeDescription)
        }
        guard v.isFinite else { throw .nonFinite(field: name, value: v) }
        return v
    }

    /// A required string field holding one of `E`'s raw values.
    func enumField<E: RawRepresentable & CaseIterable>(_ value: RawFieldValue?, _ name: String)
        throws(RejectReason) -> E where E.RawValue == String {
        guard let value else { throw .missingField(name) }
        guard case .string(let span) = value else {
            throw .badFieldType(field: name, expected: "a string", found: value.typeDescription)
        }
        let text = bytes.string(span)   // ≤ 15 UTF-8 bytes: stored inline, no allocation
        if let match = E(rawValue: text) { return match }
        throw .badValue(name: name, value: text,
                        expected: E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
    }
}

/// The names the ingest decoder reads, as the little-endian words of their bytes (see
/// `UnsafeRawBufferPointer.word`), compared together with the name's length. Tested against the text.
enum NameWord {
    static let ranging: UInt64 = 0x67_6E69_676E_6172     // "ranging"
    static let motion: UInt64 = 0x6E6F_6974_6F6D         // "motion"
    static let removed: UInt64 = 0x64_6576_6F6D_6572     // "removed"
    static let session: UInt64 = 0x6E_6F69_7373_6573     // "session"
    static let tag: UInt64 = 0x67_6174                   // "tag"
    static let site: UInt64 = 0x6574_6973                // "site"
    static let tech: UInt64 = 0x6863_6574                // "tech"
    static let anchor: UInt64 = 0x726F_6863_6E61         // "anchor"
    static let std: UInt64 = 0x64_7473                   // "std"
    static let dirX: UInt64 = 0x78_5F72_6964             // "dir_x"
    static let dirY: UInt64 = 0x79_5F72_6964             // "dir_y"
    static let dirZ: UInt64 = 0x7A_5F72_6964             // "dir_z"
    static let state: UInt64 = 0x65_7461_7473            // "state"
    static let reason: UInt64 = 0x6E6F_7361_6572         // "reason"
    static let azimuth: UInt64 = 0x68_7475_6D69_7A61     // "azimuth"
    static let distance: UInt64 = 0x6563_6E61_7473_6964  // "distance"
    static let elevatio: UInt64 = 0x6F69_7461_7665_6C65  // "elevatio", the first 8 bytes of "elevation"
}
