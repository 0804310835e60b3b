/// Names (site, anchor or tag ids) numbered densely from 0, with a lookup from name to number.
///
/// The engine looks up an anchor and a tag for every ranging line. `Dictionary<String, Int>` hashes
/// with SipHash, which costs a few hundred instructions per lookup; this table hashes the UTF-8 bytes
/// from loads and multiplications and probes linearly (load ≤ 1/2). Each slot keeps the name's hash
/// beside its number, so a probe that meets another name is passed over without comparing Strings (a
/// call into the runtime when their bits differ); `==` confirms the one whose hash matches. Removal
/// moves the last name into the freed number, so the numbers stay dense and can index arrays.
struct NameIndex: Sendable {
    /// The names by number.
    private(set) var names: [String] = []
    /// Open-addressing table of slots, its size a power of two: 0 when empty, else the name's 32-bit
    /// hash in the high half and its number + 1 in the low half.
    private var table = [UInt64](repeating: 0, count: 8)

    init() {}

    /// Numbers `names` in order (a repeated name keeps its first number, later copies are skipped).
    init(_ names: [String]) {
        for n in names where number(of: n) == nil { insert(n) }
    }

    var count: Int { names.count }

    /// The number of `name`, or nil when it is not in the index.
    @inline(__always)
    func number(of name: String) -> Int? {
        let mask = table.count - 1
        let h = Self.hash(name)
        let high = UInt64(truncatingIfNeeded: h) << 32
        var i = h & mask
        while true {
            let slot = table[i]
            if slot == 0 { return nil }
            if slot & Self.hashBits == high {
                let n = Int(truncatingIfNeeded: slot & Self.numberBits) &- 1
                if names[n] == name { return n }
            }
            i = (i + 1) & mask
        }
    }

    /// Adds a name that is not in the index; returns its number (the previous `count`).
    @discardableResult
    mutating func insert(_ name: String) -> Int {
        if 2 * (names.count + 1) > table.count { rehash(capacity: 2 * table.count) }
        let n = names.count
        names.append(name)
        place(n)
        return n
    }

    /// Removes a name. The last name takes over its number: returns that name's old number (the
    /// caller moves what it keeps by number the same way), or nil when the removed name was the last.
    @discardableResult
    mutating func remove(_ name: String) -> (removed: Int, movedFrom: Int?)? {
        guard let n = number(of: name) else { return nil }
        unplace(n)
        let last = names.count - 1
        if n != last {
            unplace(last)
            names[n] = names[last]
            names.removeLast()
            place(n)
            return (n, last)
        }
        names.removeLast()
        return (n, nil)
    }

    // MARK: table

    /// A multiplicative hash of the UTF-8 bytes (see `hash(_:)` of bytes), with a final fold so that
    /// every byte reaches the bits the table uses. The names' numbers do not depend on it: it only
    /// places them in the table.
    @inline(__always)
    static func hash(_ name: String) -> Int {
        if let h = name.utf8.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) {
            return Int(truncatingIfNeeded: h)
        }
        return Int(truncatingIfNeeded: Array(name.utf8).withUnsafeBytes { hash($0) })
    }

    /// The hash of `bytes`, from loads only: up to 8 bytes are read as two overlapping 4-byte words (or,
    /// below 4, the first, middle and last bytes), which together with the length determine them all;
    /// longer names a word at a time, the last word overlapping. Each word is xored into the state and
    /// multiplied by an odd constant; the length seeds the state.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let m: UInt64 = 0x9E37_79B9_7F4A_7C15
        let n = bytes.count
        var h = UInt64(truncatingIfNeeded: n) &* m
        if n >= 4 && n <= 8 {
            let first = UInt64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            let last = UInt64(bytes.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self))
            h = (h ^ (first | last << 32)) &* m
        } else if n > 8 {
            var i = 0
            while i &+ 8 < n {
                h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* m
                i &+= 8
            }
            h = (h ^ bytes.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)) &* m
        } else if n > 0 {
            let w = UInt64(bytes[0]) | UInt64(bytes[n >> 1]) << 8 | UInt64(bytes[n &- 1]) << 16
            h = (h ^ w) &* m
        }
        // Fold the high half down and mix again: the table takes low bits of the high half.
        return ((h ^ (h >> 32)) &* m) >> 32
    }

    private static let hashBits: UInt64 = 0xFFFF_FFFF_0000_0000, numberBits: UInt64 = 0xFFFF_FFFF

    /// Puts number `n` (whose name is `names[n]`) into the table.
    private mutating func place(_ n: Int) {
        let mask = table.count - 1
        let h = Self.hash(names[n])
        var i = h & mask
        while table[i] != 0 { i = (i + 1) & mask }
        table[i] = UInt64(truncatingIfNeeded: h) << 32 | UInt64(n + 1)
    }

    /// Takes number `n` out of the table, shifting later entries of its probe run back (no tombstones).
    private mutating func unplace(_ n: Int) {
        let mask = table.count - 1
        var i = Self.hash(names[n]) & mask
        while Int(truncatingIfNeeded: table[i] & Self.numberBits) != n + 1 { i = (i + 1) & mask }
        var hole = i
        var j = (i + 1) & mask
        while table[j] != 0 {
            let home = Int(truncatingIfNeeded: table[j] >> 32) & mask
            // The entry at j may move into the hole when its home is not in the cyclic range (hole, j].
            let inRange = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
            if !inRange {
                table[hole] = table[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        table[hole] = 0
    }

    private mutating func rehash(capacity: Int) {
        table = [UInt64](repeating: 0, count: capacity)
        for n in names.indices { place(n) }
    }
}
