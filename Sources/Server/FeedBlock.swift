/// A run of whole encoded feed lines shared by every subscriber of a `FeedChannel`.
///
/// The channel appends lines to its newest block until the block is full, then starts the next one and
/// links it as `next`. Subscribers read the bytes in place (one `send` of many lines, no copy per
/// subscriber). A block the channel let go of (`trimmed`) is still readable by a subscriber that holds
/// it, but its `next` link is cut, so a subscriber that was behind it jumps to the channel's oldest
/// block and a never-reading subscriber keeps at most the one block it holds alive.
final class FeedBlock {
    /// The lines' bytes, each ending with `\n`.
    private(set) var bytes: [UInt8] = []
    /// The channel's number of the block's first line.
    let firstLine: Int
    /// The end offset in `bytes` of each line, in order.
    private(set) var lineEnds: [UInt32] = []
    /// The block that follows, once this one is full; nil while it is the newest, or once trimmed.
    var next: FeedBlock?
    /// True once the channel no longer holds this block.
    var trimmed = false

    init(firstLine: Int, capacity: Int) {
        self.firstLine = firstLine
        bytes.reserveCapacity(capacity)
    }

    /// Lines in the block.
    var lineCount: Int { lineEnds.count }
    /// The channel's number of the line after the block's last.
    var endLine: Int { firstLine + lineEnds.count }

    /// Appends one whole line (with its `\n`).
    func append(_ line: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: line.bindMemory(to: UInt8.self))
        lineEnds.append(UInt32(bytes.count))
    }

    /// True when a line ends at byte `offset`.
    func isLineEnd(_ offset: Int) -> Bool {
        let k = linesBefore(offset: offset)
        return k > 0 && Int(lineEnds[k - 1]) == offset
    }

    /// How many of the block's lines end at or before byte `offset` (whole lines sent).
    func linesBefore(offset: Int) -> Int {
        var lo = 0, hi = lineEnds.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(lineEnds[mid]) <= offset { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
