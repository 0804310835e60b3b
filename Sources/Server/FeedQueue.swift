/// The bounded queue of lines waiting to be sent to one feed client.
///
/// Lines are shared `[UInt8]` buffers (one allocation per output, however many clients get it). The
/// bytes being sent live in `outgoing`, gathered from whole queued lines, so dropping the oldest queued
/// lines never cuts a line in half; the `# dropped N lines` marker goes out where the gap is.
struct FeedQueue {
    /// Queued lines; the live ones are `lines[head...]`.
    private var lines: [[UInt8]] = []
    private var head = 0
    /// Bytes gathered for sending, and how many of them were sent.
    private(set) var outgoing: [UInt8] = []
    private(set) var sent = 0
    /// Lines dropped since the last marker.
    private var droppedSinceMarker = 0
    /// How many bytes one gather takes from the queue.
    static let gatherBytes = 64 * 1024

    /// Queued lines (not counting those gathered).
    var count: Int { lines.count - head }
    /// True when nothing is waiting to be sent.
    var isEmpty: Bool { count == 0 && sent == outgoing.count && droppedSinceMarker == 0 }

    /// Appends a line (with its `\n`).
    mutating func append(_ line: [UInt8]) {
        lines.append(line)
    }

    /// Drops the oldest queued line; the next gather starts with a marker. - Returns: false when empty.
    @discardableResult
    mutating func dropOldest() -> Bool {
        guard head < lines.count else { return false }
        lines[head] = []
        head += 1
        droppedSinceMarker += 1
        compact()
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
        while head < lines.count, outgoing.count < Self.gatherBytes {
            outgoing.append(contentsOf: lines[head])
            lines[head] = []
            head += 1
        }
        compact()
    }

    private mutating func compact() {
        if head == lines.count {
            lines.removeAll(keepingCapacity: lines.capacity <= 65_536)
            head = 0
        } else if head > 4096 && head * 2 > lines.count {
            lines.removeFirst(head)
            head = 0
        }
    }
}
