/// A 4-ary min-heap of (time, source) pairs: the simulator's merge of many periodic sources.
/// Ties in time are broken by source index, so the order is fully deterministic. Four children per node
/// halve the depth of a binary heap, which matters with tens of thousands of sources.
struct ScheduleHeap {
    struct Entry {
        var time: Nanoseconds
        var source: Int32

        @inline(__always) static func < (a: Entry, b: Entry) -> Bool {
            a.time < b.time || (a.time == b.time && a.source < b.source)
        }
    }

    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var top: Entry? { entries.first }

    init(capacity: Int) { entries.reserveCapacity(capacity) }

    mutating func push(_ e: Entry) {
        entries.append(e)
        var i = entries.count - 1
        while i > 0 {
            let parent = (i - 1) / 4
            guard e < entries[parent] else { break }
            entries[i] = entries[parent]
            i = parent
        }
        entries[i] = e
    }

    /// Gives the top entry a new time and restores the heap (cheaper than pop + push).
    mutating func rescheduleTop(at time: Nanoseconds) {
        var e = entries[0]
        e.time = time
        siftDown(e, from: 0)
    }

    /// Removes the top entry.
    mutating func popTop() {
        let last = entries.removeLast()
        if !entries.isEmpty { siftDown(last, from: 0) }
    }

    private mutating func siftDown(_ e: Entry, from start: Int) {
        entries.withUnsafeMutableBufferPointer { h in
            let n = h.count
            var i = start
            while true {
                let first = 4 * i + 1
                if first >= n { break }
                var c = first
                var best = h[first]
                for j in (first + 1)..<Swift.min(first + 4, n) where h[j] < best { c = j; best = h[j] }
                guard best < e else { break }
                h[i] = best
                i = c
            }
            h[i] = e
        }
    }
}
