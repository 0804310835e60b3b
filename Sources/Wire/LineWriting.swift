/// Appending line-protocol pieces to a byte buffer (internal helpers for the encoders).
extension Array where Element == UInt8 {
    @inline(__always)
    mutating func append(_ literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends `,key=value` with `,`, `=` and space in the value escaped.
    mutating func appendTag(_ key: StaticString, _ value: String) {
        append(ASCII.comma)
        append(key)
        append(ASCII.equals)
        for byte in value.utf8 {
            if byte == ASCII.comma || byte == ASCII.equals || byte == ASCII.space { append(ASCII.backslash) }
            append(byte)
        }
    }

    /// Appends `key=` preceded by `,` unless it is the first field.
    @inline(__always)
    mutating func appendFieldKey(_ key: StaticString, first: Bool = false) {
        if !first { append(ASCII.comma) }
        append(key)
        append(ASCII.equals)
    }

    /// Appends a quoted string field value with `"` and `\` escaped.
    mutating func appendQuoted(_ value: String) {
        append(ASCII.quote)
        for byte in value.utf8 {
            if byte == ASCII.quote || byte == ASCII.backslash { append(ASCII.backslash) }
            append(byte)
        }
        append(ASCII.quote)
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
    var last: UInt8?
    for byte in value.utf8 {
        if byte == ASCII.lf || byte == ASCII.cr { return false }
        last = byte
    }
    return last != nil && last != ASCII.backslash
}
