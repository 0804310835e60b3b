/// Names (site, anchor or tag ids) numbered densely from 0, with a lookup from name to number.
///
/// The engine looks up an anchor and a tag for every ranging line. `Dictionary<String, Int>` hashes
/// with SipHash, which costs a few hundred instructions per lookup; this table hashes the UTF-8 bytes
/// with FNV-1a and probes linearly (load ≤ 1/2), then confirms with `==`, which for the short ids
/// of a line (small strings) compares two words. Removal moves the last name into the freed number,
/// so the numbers stay dense and can index arrays.
struct NameIndex: Sendable {
    /// The names by number.
    private(set) var names: [String] = []
    /// Open-addressing table of numbers (-1: empty); its size is a power of two.
    private var table = [Int32](repeating: -1, count: 8)

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
        var i = Self.hash(name) & mask
        while true {
            let n = Int(table[i])
            if n < 0 { return nil }
            if names[n] == name { return n }
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

    /// FNV-1a over the UTF-8 bytes, with a final multiply so that the low bits mix well.
    @inline(__always)
    static func hash(_ name: String) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        let done: Void? = name.utf8.withContiguousStorageIfAvailable { bytes in
            for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        }
        if done == nil { for b in name.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 } }
        return Int(truncatingIfNeeded: (h &* 0x9e37_79b9_7f4a_7c15) >> 32)
    }

    /// Puts number `n` (whose name is `names[n]`) into the table.
    private mutating func place(_ n: Int) {
        let mask = table.count - 1
        var i = Self.hash(names[n]) & mask
        while table[i] >= 0 { i = (i + 1) & mask }
        table[i] = Int32(n)
    }

    /// Takes number `n` out of the table, shifting later entries of its probe run back (no tombstones).
    private mutating func unplace(_ n: Int) {
        let mask = table.count - 1
        var i = Self.hash(names[n]) & mask
        while Int(table[i]) != n { i = (i + 1) & mask }
        var hole = i
        var j = (i + 1) & mask
        while table[j] >= 0 {
            let home = Self.hash(names[Int(table[j])]) & mask
            // The entry at j may move into the hole when its home is not in the cyclic range (hole, j].
            let inRange = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
            if !inRange {
                table[hole] = table[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        table[hole] = -1
    }

    private mutating func rehash(capacity: Int) {
        table = [Int32](repeating: -1, count: capacity)
        for n in names.indices { place(n) }
    }
}
