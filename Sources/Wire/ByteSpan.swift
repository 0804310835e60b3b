/// ASCII bytes the line protocol gives meaning to.
enum ASCII {
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let tab: UInt8 = 0x09
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let hash: UInt8 = 0x23
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let dot: UInt8 = 0x2E
    static let zero: UInt8 = 0x30
    static let equals: UInt8 = 0x3D
    static let backslash: UInt8 = 0x5C
}

/// Which escape rules apply inside a span. `.none` means the span holds no escape sequence at all, so its
/// bytes are the value as is.
enum EscapeKind: UInt8, Sendable {
    /// No escape sequence present.
    case none
    /// Measurement name: `\,` and `\ `.
    case measurement
    /// Tag key, tag value or field key: `\,`, `\=` and `\ `.
    case key
    /// String field value (between the quotes): `\"` and `\\`.
    case string

    /// True when a backslash followed by `byte` is an escape sequence under these rules.
    @inline(__always)
    func escapes(_ byte: UInt8) -> Bool {
        switch self {
        case .none: false
        case .measurement: byte == ASCII.comma || byte == ASCII.space
        case .key: byte == ASCII.comma || byte == ASCII.equals || byte == ASCII.space
        case .string: byte == ASCII.quote || byte == ASCII.backslash
        }
    }
}

/// A range of bytes within one line, still escaped; decoded to a `String` only when needed.
struct ByteSpan: Sendable, Equatable {
    var start: Int
    var end: Int
    var escape: EscapeKind

    var isEmpty: Bool { start == end }
    var count: Int { end - start }
}

/// A field value as scanned: numbers decoded, strings left as spans of the line.
enum RawFieldValue: Sendable, Equatable {
    case float(Double)
    case integer(Int64)
    case unsigned(UInt64)
    case string(ByteSpan)
    case boolean(Bool)

    /// The line-protocol type, for messages: "a float", "an integer", …
    var typeDescription: String {
        switch self {
        case .float: "a float"
        case .integer: "an integer"
        case .unsigned: "an unsigned integer"
        case .string: "a string"
        case .boolean: "a boolean"
        }
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes of `span`, unescaped, as a String (invalid UTF-8 is repaired).
    func string(_ span: ByteSpan) -> String {
        let raw = UnsafeRawBufferPointer(rebasing: self[span.start..<span.end])
        if span.escape == .none {
            // Ids are short: up to 15 ASCII bytes become a small String with no validation pass (the
            // initializer checks the ASCII bit of the packed words and repairs anything else, as
            // `String(decoding:as:)` does). A few bytes are copied by a loop, cheaper than a call.
            let n = raw.count
            return String(unsafeUninitializedCapacity: n) { out in
                if n <= 15 {
                    for k in 0..<n { out[k] = raw[k] }
                } else {
                    UnsafeMutableRawBufferPointer(out).copyMemory(from: raw)
                }
                return n
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            let c = raw[i]
            if c == ASCII.backslash, i + 1 < raw.count, span.escape.escapes(raw[i + 1]) {
                out.append(raw[i + 1])
                i += 2
            } else {
                out.append(c)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True when `span` holds a control byte: C0 (0x00–0x1F: NUL, tab, CR, LF, ESC…) or DEL (0x7F),
    /// which no id may contain (a raw one would reach the feed, the log and the store). Eight bytes at
    /// a time.
    @inline(__always)
    func hasControlByte(_ span: ByteSpan) -> Bool {
        var i = span.start
        while i + 8 <= span.end {
            if Self.controlBytes(UInt64(littleEndian: loadUnaligned(fromByteOffset: i, as: UInt64.self))) { return true }
            i += 8
        }
        while i < span.end {
            let c = self[i]
            if c < 0x20 || c == 0x7F { return true }
            i += 1
        }
        return false
    }

    /// True when some byte of `w` is below 0x20 or is 0x7F (the "has less than" and "has zero" word
    /// tests: exact as to whether such a byte exists, not which).
    @inline(__always)
    static func controlBytes(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let del = w ^ (0x7F &* ones)
        return ((w &- 0x20 &* ones) & ~w & highs) | ((del &- ones) & ~del & highs) != 0
    }

    /// The raw bytes from `start` to `end` as a String, for messages.
    func text(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: self[start..<end]), as: UTF8.self)
    }

    /// The bytes of `span` (at most 8, unescaped as they stand) as a little-endian word, zero above
    /// its end: a name compared in one instruction with a `NameWord` constant (and its length).
    @inline(__always)
    func word(_ span: ByteSpan) -> UInt64 {
        let n = span.count
        if span.start + 8 <= count {
            let w = UInt64(littleEndian: loadUnaligned(fromByteOffset: span.start, as: UInt64.self))
            return n >= 8 ? w : w & ((1 &<< (8 &* UInt64(truncatingIfNeeded: n))) &- 1)
        }
        var w: UInt64 = 0
        for k in 0..<Swift.min(n, 8) { w |= UInt64(self[span.start + k]) << (8 * UInt64(k)) }
        return w
    }

    /// True when `span` holds exactly `literal`. Spans with escape sequences never match: every literal
    /// we look for (tag and field names, enum values) is free of `,`, `=`, space, `"` and `\`.
    @inline(__always)
    func matches(_ span: ByteSpan, _ literal: StaticString) -> Bool {
        guard span.escape == .none, span.count == literal.utf8CodeUnitCount else { return false }
        let p = literal.utf8Start
        for k in 0..<span.count where self[span.start + k] != p[k] { return false }
        return true
    }
}
