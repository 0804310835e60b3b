#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One piece of output from `LineSplitter`.
public enum SplitLine {
    /// A complete line without its `\n` (a `\r` before it is left for the parser). `bytes` is valid only
    /// during the callback that receives it.
    case line(number: Int, bytes: UnsafeRawBufferPointer)
    /// Line `number` exceeded the maximum length; it is being skipped up to its newline and will not be
    /// delivered. Reported once, as soon as the limit is passed.
    case tooLong(number: Int)

    /// The 1-based line number.
    public var number: Int {
        switch self {
        case .line(let n, _), .tooLong(let n): n
        }
    }
}

/// Splits a byte stream into lines, incrementally: chunks may end anywhere, and one chunk may hold many
/// lines. Lines that fit in a chunk are handed out in place (no copy); only a line split across chunks is
/// gathered in a carry buffer, which is reused. A line longer than `maxLineLength` bytes (excluding the
/// `\n`) is reported as `.tooLong` and skipped without being buffered.
public struct LineSplitter: Sendable {
    /// Longest line accepted, bytes, not counting the `\n`.
    public let maxLineLength: Int
    /// Number of the last line completed (or reported too long and finished); the next line is this + 1.
    public private(set) var lineCount = 0
    private var carry: [UInt8] = []
    /// True while discarding the rest of a too-long line.
    private var skipping = false

    /// - Parameter maxLineLength: longest line accepted, bytes (default 65536).
    public init(maxLineLength: Int = 65536) {
        precondition(maxLineLength > 0, "maxLineLength must be positive")
        self.maxLineLength = maxLineLength
    }

    /// True when part of a line is held, waiting for more bytes.
    public var hasPartialLine: Bool { !carry.isEmpty || skipping }

    /// Feeds the next bytes of the stream and calls `body` for every line they complete.
    /// - Parameters:
    ///   - chunk: the bytes just read.
    ///   - body: receives each complete line (or a too-long report), in order.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: (SplitLine) throws -> Void) rethrows {
        guard let base = chunk.baseAddress else { return }
        var start = 0
        let count = chunk.count
        while start < count {
            let found = memchr(base + start, Int32(ASCII.lf), count - start)
            guard let newline = found.map({ UnsafeRawPointer($0) - base }) else {
                try hold(UnsafeRawBufferPointer(rebasing: chunk[start..<count]), body)
                return
            }
            let piece = UnsafeRawBufferPointer(rebasing: chunk[start..<newline])
            start = newline + 1
            lineCount += 1
            if skipping {
                skipping = false
                continue
            }
            if carry.count + piece.count > maxLineLength {
                carry.removeAll(keepingCapacity: true)
                try body(.tooLong(number: lineCount))
            } else if carry.isEmpty {
                try body(.line(number: lineCount, bytes: piece))
            } else {
                carry.append(contentsOf: piece)
                defer { carry.removeAll(keepingCapacity: true) }
                try carry.withUnsafeBytes { try body(.line(number: lineCount, bytes: $0)) }
            }
        }
    }

    /// Feeds bytes held in an array. See `feed(_:_:)`.
    public mutating func feed(_ chunk: [UInt8], _ body: (SplitLine) throws -> Void) rethrows {
        try chunk.withUnsafeBytes { try feed($0, body) }
    }

    /// At the end of a file: delivers a final line that has no `\n`, if any, and resets.
    /// - Parameter body: receives the final line.
    public mutating func finish(_ body: (SplitLine) throws -> Void) rethrows {
        if skipping {
            skipping = false
            lineCount += 1
            return
        }
        guard !carry.isEmpty else { return }
        lineCount += 1
        defer { carry.removeAll(keepingCapacity: true) }
        try carry.withUnsafeBytes { try body(.line(number: lineCount, bytes: $0)) }
    }

    /// On a disconnect: drops any partial line instead of delivering it. Line numbering continues.
    /// - Returns: true when a partial line was dropped.
    @discardableResult
    public mutating func discardPartialLine() -> Bool {
        let had = hasPartialLine
        carry.removeAll(keepingCapacity: true)
        skipping = false
        return had
    }

    /// Keeps the start of an unfinished line, or starts skipping it once it is too long.
    private mutating func hold(_ rest: UnsafeRawBufferPointer, _ body: (SplitLine) throws -> Void) rethrows {
        if skipping { return }
        if carry.count + rest.count > maxLineLength {
            carry.removeAll(keepingCapacity: true)
            skipping = true
            try body(.tooLong(number: lineCount + 1))
        } else {
            carry.append(contentsOf: rest)
        }
    }
}
