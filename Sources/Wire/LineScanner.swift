internal import CScan

/// Receives the parts of a line as the scanner finds them, as spans of the line's bytes.
protocol LineVisitor {
    mutating func tag(key: ByteSpan, value: ByteSpan)
    mutating func field(key: ByteSpan, value: RawFieldValue)
}

/// What a scanned line turned out to be.
enum ScanOutcome {
    /// A blank line or a comment.
    case skip
    /// A data line; tags and fields were passed to the visitor in order.
    case line(measurement: ByteSpan, timestamp: Int64?)
}

/// The byte-level line-protocol scanner: `measurement[,tag=v…] field=v[,field=v…] [timestamp]`.
/// It allocates nothing on a valid line; tags and fields go to a visitor as spans.
enum LineScanner {
    /// Scans one line (a trailing `\n` and/or `\r` is tolerated). Leading spaces and tabs are skipped;
    /// blank lines and lines whose first non-blank byte is `#` give `.skip`.
    /// - Parameter seriesFastPath: false to scan the measurement and tags with the general path only
    ///   (the tests compare the two).
    @inline(__always)
    static func scan<V: LineVisitor>(_ b: UnsafeRawBufferPointer, into visitor: inout V,
                                     seriesFastPath: Bool = true) throws(LineError) -> ScanOutcome {
        var end = b.count
        if end > 0, b[end - 1] == ASCII.lf { end -= 1 }
        if end > 0, b[end - 1] == ASCII.cr { end -= 1 }
        var i = 0
        while i < end, b[i] == ASCII.space || b[i] == ASCII.tab { i += 1 }
        if i == end || b[i] == ASCII.hash { return .skip }

        let measurement: ByteSpan
        if seriesFastPath, let m = seriesKey(b, &i, end, &visitor) {
            measurement = m
        } else {
            measurement = try generalSeriesKey(b, &i, end, &visitor)
        }
        while i < end, b[i] == ASCII.space { i += 1 }
        if i == end { throw LineError("the line has no fields", column: i + 1) }

        while true {
            let key = scanName(b, &i, end, .key)
            if key.isEmpty { throw LineError("empty field key", column: i + 1) }
            guard i < end, b[i] == ASCII.equals else {
                throw LineError("field '\(b.string(key))' has no '=value'", column: i + 1)
            }
            i += 1
            // A plain decimal is read here, in the loop; anything else in scanFieldValue.
            let value: RawFieldValue
            if i < end, let v = plainDecimal(b, &i, end) {
                value = .float(v)
            } else {
                value = try scanFieldValue(b, &i, end, key)
            }
            visitor.field(key: key, value: value)
            guard i < end, b[i] == ASCII.comma else { break }
            i += 1
        }

        while i < end, b[i] == ASCII.space || b[i] == ASCII.tab { i += 1 }
        guard i < end else { return .line(measurement: measurement, timestamp: nil) }
        let start = i
        // The usual timestamp, up to 19 digits within Int64, is read as it is scanned; anything else
        // (a sign, a bad byte, an overflow) is scanned and parsed again by the general path below.
        let fast = sextant_timestamp_digits(b.baseAddress!.assumingMemoryBound(to: UInt8.self), &i, end)
        if i > start, i == end || b[i] == ASCII.space || b[i] == ASCII.tab, fast <= UInt64(Int64.max) {
            while i < end, b[i] == ASCII.space || b[i] == ASCII.tab { i += 1 }
            if i < end { throw LineError("unexpected text after the timestamp", column: i + 1) }
            return .line(measurement: measurement, timestamp: Int64(fast))
        }
        i = start
        while i < end, b[i] != ASCII.space, b[i] != ASCII.tab { i += 1 }
        guard let timestamp = NumberParsing.int64(b, start, i) else {
            throw LineError("invalid timestamp '\(b.text(start, i))' (expected integer nanoseconds)",
                            column: start + 1)
        }
        while i < end, b[i] == ASCII.space || b[i] == ASCII.tab { i += 1 }
        if i < end { throw LineError("unexpected text after the timestamp", column: i + 1) }
        return .line(measurement: measurement, timestamp: timestamp)
    }

    /// The measurement name and tags, from `i` to the first unescaped space (left at `i`): each tag is
    /// handed to the visitor. Throws the first error in them.
    private static func generalSeriesKey<V: LineVisitor>(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ end: Int,
                                                         _ visitor: inout V) throws(LineError) -> ByteSpan {
        let measurement = scanName(b, &i, end, .measurement)
        if measurement.isEmpty { throw LineError("the line has no measurement name", column: i + 1) }
        while i < end, b[i] == ASCII.comma {
            i += 1
            let key = scanName(b, &i, end, .key)
            if key.isEmpty { throw LineError("empty tag key", column: i + 1) }
            guard i < end, b[i] == ASCII.equals else {
                throw LineError("tag '\(b.string(key))' has no '=value'", column: i + 1)
            }
            i += 1
            let value = scanName(b, &i, end, .key)
            if value.isEmpty { throw LineError("tag '\(b.string(key))' has an empty value", column: i + 1) }
            if i < end, b[i] == ASCII.equals {
                throw LineError("unescaped '=' in the value of tag '\(b.string(key))'", column: i + 1)
            }
            visitor.tag(key: key, value: value)
        }
        return measurement
    }

    /// What `generalSeriesKey` finds on the usual line, from the positions of the separators in the
    /// line's first 64 bytes (`sextant_separator_masks`, 16 bytes per compare) instead of byte by byte:
    /// the measurement and its tags end at a space within them, with no backslash before it, and each
    /// tag between two commas (or the last comma and the space) holds one `=` with text on both sides.
    /// Nil, with nothing handed to the visitor, for any other line, which the general path then scans
    /// (and refuses with its reason when it is wrong).
    @inline(__always)
    private static func seriesKey<V: LineVisitor>(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ end: Int,
                                                  _ visitor: inout V) -> ByteSpan? {
        let start = i
        var comma: UInt64 = 0, equals: UInt64 = 0, space: UInt64 = 0, backslash: UInt64 = 0
        sextant_separator_masks(b.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, Swift.min(64, end - start),
                                &comma, &equals, &space, &backslash)
        guard space != 0 else { return nil }
        let keyEnd = space.trailingZeroBitCount   // ≤ 63
        let before = (UInt64(1) << UInt64(keyEnd)) &- 1
        guard backslash & before == 0 else { return nil }
        let commas = comma & before
        let nameEnd = commas == 0 ? keyEnd : commas.trailingZeroBitCount
        guard nameEnd > 0 else { return nil }
        // An `=` in the measurement name is part of it. After the name, commas and equals signs must
        // alternate, comma first and equals last (one `=` per tag), none next to the one before it or
        // to the space (no empty key or value): with `odd` the running parity of the separators met
        // (a prefix XOR), every comma comes at an odd count and every `=` at an even one.
        let tagEquals = equals & before & ~((UInt64(1) << UInt64(nameEnd)) &- 1)
        var odd = commas | tagEquals
        odd ^= odd << 1; odd ^= odd << 2; odd ^= odd << 4; odd ^= odd << 8; odd ^= odd << 16; odd ^= odd << 32
        guard commas & ~odd == 0, tagEquals & odd == 0, commas.nonzeroBitCount == tagEquals.nonzeroBitCount,
              tagEquals & (commas << 1) == 0, (commas | space & ~before) & (tagEquals << 1) == 0 else { return nil }
        var equalsLeft = tagEquals
        var rest = commas
        while rest != 0 {
            let c = rest.trailingZeroBitCount
            rest &= rest &- 1
            let q = equalsLeft.trailingZeroBitCount
            equalsLeft &= equalsLeft &- 1
            let stop = rest == 0 ? keyEnd : rest.trailingZeroBitCount
            visitor.tag(key: ByteSpan(start: start &+ c &+ 1, end: start &+ q, escape: .none),
                        value: ByteSpan(start: start &+ q &+ 1, end: start &+ stop, escape: .none))
        }
        i = start &+ keyEnd
        return ByteSpan(start: start, end: start &+ nameEnd, escape: .none)
    }

    /// Scans a measurement name, tag key, tag value or field key up to the first unescaped separator
    /// (comma and space; also `=` for keys and values). A backslash before any other byte is literal.
    @inline(__always)
    private static func scanName(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ end: Int, _ kind: EscapeKind)
        -> ByteSpan {
        let start = i
        var escaped = false
        while i < end {
            // Eight bytes at a time up to the first that may end or escape the name.
            if i + 8 <= end {
                let stop = candidateStops(UInt64(littleEndian: b.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                if stop == 0 {
                    i += 8
                    continue
                }
                i += stop.trailingZeroBitCount >> 3
            }
            let c = b[i]
            if c == ASCII.backslash, i + 1 < end, kind.escapes(b[i + 1]) {
                escaped = true
                i += 2
                continue
            }
            if c == ASCII.comma || c == ASCII.space || (kind == .key && c == ASCII.equals) { break }
            i += 1
        }
        return ByteSpan(start: start, end: i, escape: escaped ? kind : .none)
    }

    /// The high bit of each byte of `w` (little-endian order) that is `,`, space, `=` or `\`, the bytes
    /// that may end or escape a name; bits above the first such byte may be false positives (borrows),
    /// the lowest set bit never is.
    @inline(__always)
    private static func candidateStops(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        return zeroBytes(w ^ (ones &* UInt64(ASCII.comma))) | zeroBytes(w ^ (ones &* UInt64(ASCII.space)))
            | zeroBytes(w ^ (ones &* UInt64(ASCII.equals))) | zeroBytes(w ^ (ones &* UInt64(ASCII.backslash)))
    }

    /// The usual number, `-?d*(.d*)?` with 1 to 15 digits and no exponent, read as it is scanned; nil
    /// for anything else (which the general path then reads). Exactly `NumberParsing.double`'s value
    /// (`sextant_plain_decimal`, shared with the ranging fast path; `i < end` on entry).
    @inline(__always)
    private static func plainDecimal(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ end: Int) -> Double? {
        var j = i, v = 0.0
        guard sextant_plain_decimal(b.baseAddress!.assumingMemoryBound(to: UInt8.self), &j, end, &v) != 0 else {
            return nil
        }
        i = j
        return v
    }

    /// Scans a field value: a quoted string (`\"` and `\\` escaped) or an unquoted number/boolean.
    /// On return `i` is at the comma, space or end after the value.
    private static func scanFieldValue(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ end: Int,
                                       _ key: ByteSpan) throws(LineError) -> RawFieldValue {
        guard i < end, b[i] != ASCII.comma, b[i] != ASCII.space else {
            throw LineError("field '\(b.string(key))' has no value", column: i + 1)
        }
        if b[i] == ASCII.quote {
            i += 1
            let start = i
            var escaped = false
            while i < end {
                let c = b[i]
                if c == ASCII.backslash, i + 1 < end, EscapeKind.string.escapes(b[i + 1]) {
                    escaped = true
                    i += 2
                    continue
                }
                if c == ASCII.quote { break }
                i += 1
            }
            guard i < end else {
                throw LineError("unterminated string in field '\(b.string(key))'", column: start)
            }
            let span = ByteSpan(start: start, end: i, escape: escaped ? .string : .none)
            i += 1
            if i < end, b[i] != ASCII.comma, b[i] != ASCII.space {
                throw LineError("unexpected text after the string in field '\(b.string(key))'", column: i + 1)
            }
            return .string(span)
        }
        let start = i
        while i < end, b[i] != ASCII.comma, b[i] != ASCII.space { i += 1 }
        guard let value = NumberParsing.fieldValue(b, start, i) else {
            throw LineError("field '\(b.string(key))' has an invalid value '\(b.text(start, i))'",
                            column: start + 1)
        }
        return value
    }
}
