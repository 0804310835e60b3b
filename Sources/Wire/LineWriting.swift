/// Where the encoders write line-protocol bytes: a growing byte array, or a `ByteWriter` on scratch
/// memory (the hot path). The escaping rules are written once, here, for both.
protocol LineSink {
    mutating func put(_ byte: UInt8)
    mutating func put(_ literal: StaticString)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension LineSink {
    /// Writes `,key=value` with `,`, `=` and space in the value escaped.
    mutating func putTag(_ key: StaticString, _ value: String) {
        put(ASCII.comma)
        put(key)
        put(ASCII.equals)
        putEscaped(value) { $0 == ASCII.comma || $0 == ASCII.equals || $0 == ASCII.space }
    }

    /// Writes `value` with a backslash before each byte for which `escaped` is true. The bytes between
    /// escapes are written as runs (a native String's UTF-8 is read in place).
    @inline(__always)
    mutating func putEscaped(_ value: String, _ escaped: (UInt8) -> Bool) {
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { bytes in
            var from = 0
            for i in bytes.indices where escaped(bytes[i]) {
                put(UnsafeBufferPointer(rebasing: bytes[from..<i]))
                put(ASCII.backslash)
                from = i
            }
            put(UnsafeBufferPointer(rebasing: bytes[from...]))
        }
        if done == nil {
            for byte in value.utf8 {
                if escaped(byte) { put(ASCII.backslash) }
                put(byte)
            }
        }
    }

    /// Writes `key=` preceded by `,` unless it is the first field.
    @inline(__always)
    mutating func putFieldKey(_ key: StaticString, first: Bool = false) {
        if !first { put(ASCII.comma) }
        put(key)
        put(ASCII.equals)
    }

    /// Writes a quoted string field value with `"` and `\` escaped.
    mutating func putQuoted(_ value: String) {
        put(ASCII.quote)
        putEscaped(value) { $0 == ASCII.quote || $0 == ASCII.backslash }
        put(ASCII.quote)
    }
}

extension Array: LineSink where Element == UInt8 {
    @inline(__always)
    mutating func put(_ byte: UInt8) { append(byte) }
    @inline(__always)
    mutating func put(_ literal: StaticString) { append(literal) }
    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// Appending line-protocol pieces to a byte buffer (internal helpers for the encoders).
extension Array where Element == UInt8 {
    @inline(__always)
    mutating func append(_ literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends a signed integer in decimal.
    mutating func appendInteger(_ value: Int64) {
        if value < 0 { append(ASCII.minus) }
        FixedDecimal.appendDigits(value.magnitude, to: &self)
    }

    /// Appends ` timestamp\n`.
    mutating func appendTimestamp(_ time: Int64) {
        append(ASCII.space)
        appendInteger(time)
        append(ASCII.lf)
    }

    /// Appends the shortest decimal that reads back as exactly `value` (finite values only).
    mutating func appendShortest(_ value: Double) {
        var text = value.description
        text.withUTF8 { append(contentsOf: $0) }
    }
}

/// True when `value` can be written as a tag value and read back unchanged: not empty, no line breaks,
/// and not ending in a backslash (which would escape the separator after it).
func isRepresentableTagValue(_ value: String) -> Bool {
    let inPlace: Bool? = value.utf8.withContiguousStorageIfAvailable { bytes in
        guard let last = bytes.last, last != ASCII.backslash else { return false }
        for byte in bytes where byte == ASCII.lf || byte == ASCII.cr { return false }
        return true
    }
    if let inPlace { return inPlace }
    var last: UInt8?
    for byte in value.utf8 {
        if byte == ASCII.lf || byte == ASCII.cr { return false }
        last = byte
    }
    return last != nil && last != ASCII.backslash
}
