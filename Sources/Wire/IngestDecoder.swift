public import Positioning

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
        do {
            return try decodeLine(line, timestamps)
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

    private func decodeLine(_ b: UnsafeRawBufferPointer, _ policy: TimestampPolicy) throws(RejectReason) -> Event? {
        var f = IngestFields(bytes: b)
        let outcome: ScanOutcome
        do {
            outcome = try LineScanner.scan(b, into: &f)
        } catch {
            throw .malformed(error)
        }
        guard case .line(let m, let timestamp) = outcome else { return nil }
        // Content is validated before the timestamp, so a bad value is reported even when replaying.
        func time() throws(RejectReason) -> Nanoseconds {
            switch (timestamp, policy) {
            case (let t?, _): return t
            case (nil, .defaultTo(let now)): return now
            case (nil, .requireTimestamp): throw .missingTimestamp
            }
        }
        if b.matches(m, "ranging") {
            var ranging = try decodeRanging(f)
            ranging.time = try time()
            return .ranging(ranging)
        } else if b.matches(m, "motion") {
            let site = try f.requiredTag(f.site, "site"), tag = try f.requiredTag(f.tag, "tag")
            let state: MotionState = try f.enumField(f.state, "state")
            return .motion(site: site, tag: tag, state: state, time: try time())
        } else if b.matches(m, "removed") {
            let site = try f.requiredTag(f.site, "site"), anchor = try f.requiredTag(f.anchor, "anchor")
            let tag = try f.requiredTag(f.tag, "tag")
            let reason: RemovalReason = try f.enumField(f.reason, "reason")
            return .removed(site: site, anchor: anchor, tag: tag, reason: reason, time: try time())
        } else if b.matches(m, "session") {
            let site = try f.requiredTag(f.site, "site"), anchor = try f.requiredTag(f.anchor, "anchor")
            let tag = f.tag.map { b.string($0) }
            let state: SessionState = try f.enumField(f.state, "state")
            return .session(site: site, anchor: anchor, tag: tag, state: state, time: try time())
        }
        throw .unknownMeasurement(b.string(m))
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

    mutating func tag(key: ByteSpan, value: ByteSpan) {
        let b = bytes
        switch key.count {
        case 3: if b.matches(key, "tag") { tag = value }
        case 4:
            if b.matches(key, "site") { site = value }
            else if b.matches(key, "tech") { tech = value }
        case 6: if b.matches(key, "anchor") { anchor = value }
        default: break
        }
    }

    mutating func field(key: ByteSpan, value: RawFieldValue) {
        let b = bytes
        switch key.count {
        case 3: if b.matches(key, "std") { std = value }
        case 5:
            if b.matches(key, "dir_x") { dirX = value }
            else if b.matches(key, "dir_y") { dirY = value }
            else if b.matches(key, "dir_z") { dirZ = value }
            else if b.matches(key, "state") { state = value }
        case 6: if b.matches(key, "reason") { reason = value }
        case 7: if b.matches(key, "azimuth") { azimuth = value }
        case 8: if b.matches(key, "distance") { distance = value }
        case 9: if b.matches(key, "elevation") { elevation = value }
        default: break
        }
    }

    /// The decoded value of a required tag.
    func requiredTag(_ span: ByteSpan?, _ name: String) throws(RejectReason) -> String {
        guard let span else { throw .missingTag(name) }
        return bytes.string(span)
    }

    /// A numeric field as a finite Double, or nil when absent.
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
