/// The bounded queue of lines waiting to be sent to one feed client.
///
/// Lines are shared `[UInt8]` buffers (one allocation per output, however many clients get it). The
/// bytes being sent live in `outgoing`, gathered from whole queued lines, so dropping the oldest queued
/// lines never cuts a line in half; the `# dropped N lines` marker goes out where the gap is.
///
/// The queued lines sit in a ring (a power-of-two slot array that doubles when full), so that a
/// client that never reads, whose full queue drops its oldest line for every new one, costs a slot
/// overwrite per line: no compaction of a 65,536-line array and no regrowth of its storage (the load check
/// has ten such clients, each dropping about 10,000 lines/s).
struct FeedQueue {
    /// The ring of queued lines: the live ones are `count` slots from `head`, modulo the capacity.
    private var slots: [[UInt8]] = []
    private var head = 0
    /// Queued lines (not counting those gathered).
    private(set) var count = 0
    /// Bytes gathered for sending, and how many of them were sent.
    private(set) var outgoing: [UInt8] = []
    private(set) var sent = 0
    /// Lines dropped since the last marker.
    private var droppedSinceMarker = 0
    /// How many bytes one gather takes from the queue.
    static let gatherBytes = 64 * 1024
    /// The ring's capacity (slots) that an emptied queue keeps; beyond it, the storage is freed.
    static let keptSlots = 65_536

    /// True when nothing is waiting to be sent.
    var isEmpty: Bool { count == 0 && sent == outgoing.count && droppedSinceMarker == 0 }

    /// Appends a line (with its `\n`).
    mutating func append(_ line: [UInt8]) {
        if count == slots.count { grow() }
        slots[(head + count) & (slots.count - 1)] = line
        count += 1
    }

    /// Drops the oldest queued line; the next gather starts with a marker. - Returns: false when empty.
    @discardableResult
    mutating func dropOldest() -> Bool {
        guard count > 0 else { return false }
        slots[head] = []
        head = (head + 1) & (slots.count - 1)
        count -= 1
        droppedSinceMarker += 1
        return true
    }

    /// The unsent bytes, refilled from the queue when the previous ones are all sent; empty when done.
    mutating func pendingBytes() -> ArraySlice<UInt8> {
        if sent == outgoing.count { gather() }
        return outgoing[sent...]
    }

    /// Records that `n` bytes of `pendingBytes()` were sent.
    mutating func consumed(_ n: Int) {
        sent += n
    }

    private mutating func gather() {
        outgoing.removeAll(keepingCapacity: true)
        sent = 0
        if droppedSinceMarker > 0 {
            outgoing.append(contentsOf: "# dropped \(droppedSinceMarker) lines\n".utf8)
            droppedSinceMarker = 0
        }
        while count > 0, outgoing.count < Self.gatherBytes {
            outgoing.append(contentsOf: takeOldest())
        }
        if count == 0 && slots.count > Self.keptSlots { slots = []; head = 0 }
    }

    /// Removes and returns the oldest line (the queue is not empty).
    private mutating func takeOldest() -> [UInt8] {
        var line: [UInt8] = []
        swap(&line, &slots[head])
        head = (head + 1) & (slots.count - 1)
        count -= 1
        return line
    }

    /// Doubles the ring (at least 16 slots), the lines in order from slot 0. Called when full. The
    /// lines are moved, not copied: a copy would retain every line and the old ring's release would
    /// then touch every line again (65,536 of them, long out of cache, for a client that never reads).
    private mutating func grow() {
        let old = slots.count, start = head
        let bigger = max(16, old * 2)
        let moved = slots.withUnsafeMutableBufferPointer { ring in
            [[UInt8]](unsafeUninitializedCapacity: bigger) { buffer, initialized in
                let base = buffer.baseAddress!
                if let from = ring.baseAddress {
                    base.moveInitialize(from: from + start, count: old - start)
                    (base + old - start).moveInitialize(from: from, count: start)
                    from.initialize(repeating: [], count: old)   // the old ring is left holding empty lines
                }
                (base + old).initialize(repeating: [], count: bigger - old)
                initialized = bigger
            }
        }
        slots = moved
        head = 0
    }
}
