import Positioning

/// The site and tag of a last known position.
struct TagKey: Hashable {
    var site: String
    var tag: String
}

/// The last position of each tag, for the snapshot a new feed subscriber gets; bounded.
///
/// A tag is forgotten when the engine removes it (its `removed` line), and by `prune` once the engine's
/// clock is more than a retention (the tag timeout) past its last position: positions reloaded from the
/// store at start, of tags not heard again, go that way. At most `capacity` tags are remembered: when
/// full, a position of a tag not yet remembered is still sent live but not remembered (counted in
/// `refused`) until a remembered tag is forgotten.
struct LastPositions {
    struct Entry {
        var estimate: PositionEstimate
        /// The update number when it was stored (see `FeedSnapshot.before`).
        var update: UInt64
    }

    private(set) var entries: [TagKey: Entry] = [:]
    let capacity: Int
    /// Positions not remembered because `capacity` tags were.
    private(set) var refused = 0
    /// Counts updates; each stored position gets the next number.
    private(set) var updates: UInt64 = 0
    /// The keys sorted by site then tag, kept until a key is added or removed.
    private var sorted: [TagKey]?

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    /// Remembers `p` as its tag's last position (unless full and the tag is new). A known tag's entry
    /// is found by one hash of its key and replaced in place (each `entries[key]` hashes the two
    /// Strings again: three of them cost about 400 instructions a position).
    mutating func record(_ p: PositionEstimate) {
        let key = TagKey(site: p.site, tag: p.tag)
        updates += 1
        if let i = entries.index(forKey: key) {
            entries.values[i] = Entry(estimate: p, update: updates)
            return
        }
        guard entries.count < capacity else {
            refused += 1
            return
        }
        entries[key] = Entry(estimate: p, update: updates)
        sorted = nil
    }

    /// Forgets a tag (it was removed).
    mutating func forget(site: String, tag: String) {
        if entries.removeValue(forKey: TagKey(site: site, tag: tag)) != nil { sorted = nil }
    }

    /// Forgets the positions older than `time` (Unix ns). - Returns: how many.
    @discardableResult
    mutating func prune(before time: Nanoseconds) -> Int {
        guard entries.values.contains(where: { $0.estimate.time < time }) else { return 0 }
        let old = entries.count
        entries = entries.filter { $0.value.estimate.time >= time }
        if entries.count != old { sorted = nil }
        return old - entries.count
    }

    /// The remembered keys, sorted by site then tag (computed once per change of the set of keys).
    mutating func sortedKeys() -> [TagKey] {
        if let sorted { return sorted }
        let keys = entries.keys.sorted { ($0.site, $0.tag) < ($1.site, $1.tag) }
        sorted = keys
        return keys
    }
}
