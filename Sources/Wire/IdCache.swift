/// Makes the Strings of ids (tag values: site, anchor, tag) from the bytes of a line.
///
/// An id holding a control byte (`hasControlByte`) gives nil, which the decoder refuses as
/// `control_character`. A String found again by its bytes was checked when it was made. (Optional,
/// not `throws`: a throwing requirement was no longer inlined, 100 instructions a line.)
protocol IdStrings {
    mutating func string(_ span: ByteSpan, in bytes: UnsafeRawBufferPointer) -> String?
}

extension UnsafeRawBufferPointer {
    /// The id in `span` as a String (`string(_:)`), nil when it holds a control byte.
    @inline(__always)
    func checkedId(_ span: ByteSpan) -> String? {
        hasControlByte(span) ? nil : string(span)
    }
}

/// Every id made anew (the decoder's stateless entry points).
struct FreshIds: IdStrings {
    @inline(__always)
    func string(_ span: ByteSpan, in bytes: UnsafeRawBufferPointer) -> String? { bytes.checkedId(span) }
}

/// The Strings of recently decoded ids, found again by their bytes: a stream names the same sites,
/// anchors and tags over and over, and finding an id here costs a fraction of making its String.
///
/// Ids of up to 16 bytes without escapes are kept, in a direct-mapped table keyed by their bytes read as
/// two words (and their length); a newer id takes the slot of an older one. Equal bytes give an equal
/// String, so what is returned never depends on what the table holds. Other ids are made anew. (Site
/// ids such as `demo-warehouse` are longer than 8 bytes and come on every line; up to 15 bytes a
/// String is stored inline, so a kept one costs a copy, not a retain.)
///
/// One cache serves one stream (a `Pipeline`, an `IngestReader`); it is about 320 KB.
public struct IdCache: Sendable {
    private struct Entry {
        /// Bytes 0..<8 and 8..<16 of the id, little-endian, zero above its end.
        var word: UInt64
        var high: UInt64
        var length: Int
        var string: String
    }

    /// The longest id kept, bytes.
    static let maxLength = 16

    /// log2 of the number of slots.
    private static let bits = 13
    private var entries: [Entry]

    /// An empty cache with all its slots.
    public init() {
        entries = Array(repeating: Entry(word: 0, high: 0, length: 0, string: ""), count: 1 << Self.bits)
    }

    private init(entries: [Entry]) { self.entries = entries }

    /// A cache without slots (it keeps nothing), to stand in while the real one is lent out.
    public static var placeholder: IdCache { IdCache(entries: []) }
}

extension IdCache: IdStrings {
    @inline(__always)
    mutating func string(_ span: ByteSpan, in bytes: UnsafeRawBufferPointer) -> String? {
        let n = span.count
        guard span.escape == .none, n <= Self.maxLength, !entries.isEmpty else { return bytes.checkedId(span) }
        let word = bytes.word(span)
        let high = n > 8 ? bytes.word(ByteSpan(start: span.start &+ 8, end: span.end, escape: .none)) : 0
        // Fibonacci hashing of the words and length: the top bits of the product pick the slot.
        let mixed = (word ^ UInt64(n)) &* 0x9E37_79B9_7F4A_7C15 ^ high
        let slot = Int(truncatingIfNeeded: (mixed &* 0x9E37_79B9_7F4A_7C15) >> (64 - UInt64(Self.bits)))
        if entries[slot].word == word, entries[slot].high == high, entries[slot].length == n {
            return entries[slot].string
        }
        guard let made = bytes.checkedId(span) else { return nil }
        entries[slot] = Entry(word: word, high: high, length: n, string: made)
        return made
    }
}
