/// Writes one line's bytes through a raw pointer into scratch memory the caller sized, for the
/// encoders' hot paths: each piece is a store or a `memcpy`, with no capacity or uniqueness check of
/// an `Array` per byte. The caller appends the finished line to its buffer at once.
struct ByteWriter: LineSink {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Bytes written so far.
    private(set) var count = 0

    /// - Parameters:
    ///   - scratch: memory for the line; it must hold every byte written (checked).
    init(_ scratch: UnsafeMutableBufferPointer<UInt8>) {
        base = scratch.baseAddress!
        capacity = scratch.count
    }

    /// The bytes written so far.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        precondition(count < capacity, "ByteWriter: scratch too small")
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func put(_ literal: StaticString) {
        let n = literal.utf8CodeUnitCount
        precondition(count + n <= capacity, "ByteWriter: scratch too small")
        (base + count).update(from: literal.utf8Start, count: n)
        count += n
    }

    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        precondition(count + n <= capacity, "ByteWriter: scratch too small")
        if n > 0 { (base + count).update(from: bytes.baseAddress!, count: n) }
        count += n
    }

    /// Writes `value` as `FixedDecimal.append(_:decimals:to:)` does.
    @inline(__always)
    mutating func putDecimal(_ value: Double, decimals: Int) {
        precondition(count + FixedDecimal.maxLength <= capacity, "ByteWriter: scratch too small")
        count += FixedDecimal.write(value, decimals: decimals, to: base + count)
    }

    /// Writes `value` as `FixedDecimal.append(_:significantDigits:to:)` does.
    @inline(__always)
    mutating func putSignificant(_ value: Double, digits: Int) {
        precondition(count + FixedDecimal.maxLength <= capacity, "ByteWriter: scratch too small")
        count += FixedDecimal.write(value, significantDigits: digits, to: base + count)
    }

    /// Writes `,key=value` as `putTag` does, checking on the way what `isRepresentableTagValue` checks.
    /// - Returns: false when `value` cannot be written as a tag value (what was written is then junk).
    @inline(__always)
    mutating func putCheckedTag(_ key: StaticString, _ value: String) -> Bool {
        put(ASCII.comma)
        put(key)
        put(ASCII.equals)
        let inPlace: Bool? = value.utf8.withContiguousStorageIfAvailable { bytes in
            guard let last = bytes.last, last != ASCII.backslash else { return false }
            let n = bytes.count
            precondition(count + 2 * n <= capacity, "ByteWriter: scratch too small")
            var k = count
            for byte in bytes {
                if byte == ASCII.comma || byte == ASCII.equals || byte == ASCII.space {
                    base[k] = ASCII.backslash
                    k += 1
                } else if byte == ASCII.lf || byte == ASCII.cr {
                    return false
                }
                base[k] = byte
                k += 1
            }
            count = k
            return true
        }
        if let inPlace { return inPlace }
        guard isRepresentableTagValue(value) else { return false }
        putEscaped(value) { $0 == ASCII.comma || $0 == ASCII.equals || $0 == ASCII.space }
        return true
    }

    /// Writes a signed integer in decimal.
    mutating func putInteger(_ value: Int64) {
        if value < 0 { put(ASCII.minus) }
        precondition(count + 20 <= capacity, "ByteWriter: scratch too small")
        count += FixedDecimal.writeDigits(value.magnitude, to: base + count)
    }

    /// Writes ` timestamp\n`.
    mutating func putTimestamp(_ time: Int64) {
        put(ASCII.space)
        putInteger(time)
        put(ASCII.lf)
    }
}
