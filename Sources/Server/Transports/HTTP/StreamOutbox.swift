import Positioning
import Foundation

/// The bytes the service loop hands to one HTTP stream, and the stream's state both sides see.
///
/// The loop appends whole feed lines (as `FeedHub.pendingBytes` gives them) while `count` is under
/// `capacity`; beyond it, the lines wait in the hub's bounded queue, where the feed's overflow policy
/// applies, and `wantsMore` asks the HTTP thread to say when it took them. So a slow browser costs one
/// outbox and the hub's queue, like a slow TCP feed client, and never blocks the loop.
///
/// Threading invariant: every field is guarded by `lock`; the loop and the HTTP thread touch it only
/// through these methods. That is why the class may be `@unchecked Sendable`.
final class StreamOutbox: @unchecked Sendable {
    /// Bytes the loop puts in before it stops and lets the hub's queue hold the rest.
    static let capacity = 256 * 1024
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private var wantsMore = false
    private var closeMessage: String?
    private var closing = false
    private var gone = false

    /// Loop: room for more bytes now.
    var hasRoom: Bool { lock.withLock { bytes.count < Self.capacity } }

    /// What `append` did.
    enum Appended {
        /// The outbox was empty: the HTTP thread must be told (the first bytes since it last took them).
        case first
        /// Bytes were waiting already: the HTTP thread was told when the first of them came.
        case more
        /// The client has gone: nothing was appended.
        case gone
    }

    /// Loop: appends bytes (whole lines).
    @discardableResult
    func append(_ slice: ArraySlice<UInt8>) -> Appended {
        lock.withLock {
            guard !gone else { return .gone }
            let first = bytes.isEmpty
            bytes.append(contentsOf: slice)
            return first ? .first : .more
        }
    }

    /// Loop: the outbox was full with lines still waiting; the HTTP thread answers through `resume`
    /// once it took them.
    func markWantsMore() { lock.withLock { wantsMore = true } }

    /// Loop: close the stream once what is queued is written, telling the client `message`.
    func close(_ message: String) {
        lock.withLock { closing = true; closeMessage = message }
    }

    /// HTTP thread: the client went away; later appends are refused.
    func markGone() { lock.withLock { gone = true; bytes = [] } }

    /// HTTP thread: something to write or a close to carry out.
    var hasWork: Bool { lock.withLock { !bytes.isEmpty || closing } }

    /// HTTP thread: moves the queued bytes to `out`. - Returns: whether the stream is to close, with
    /// its message, and (through `resume`) whether the loop waits for room.
    func take(into out: inout [UInt8]) -> (closing: Bool, message: String?) {
        lock.withLock {
            out.append(contentsOf: bytes)
            bytes.removeAll(keepingCapacity: true)
            return (closing, closeMessage)
        }
    }

    /// HTTP thread: true (once) when the loop waits for room and the outbox is empty again.
    func takeResume() -> Bool {
        lock.withLock {
            guard wantsMore, bytes.isEmpty else { return false }
            wantsMore = false
            return true
        }
    }
}

/// What one feed line becomes as a stream message.
enum StreamLine {
    /// The line itself, except the hub's `# dropped N lines` marker, which a JSON stream reads as
    /// `{"type":"dropped","lines":N}`.
    static func message(_ line: ArraySlice<UInt8>, format: FeedFormat) -> [UInt8] {
        guard format == .json, line.first == UInt8(ascii: "#") else { return Array(line) }
        let text = String(decoding: line, as: UTF8.self)
        let words = text.split(separator: " ")
        if words.count == 4, words[1] == "dropped", let n = Int(words[2]) {
            return Array("{\"type\":\"dropped\",\"lines\":\(n)}".utf8)
        }
        return Array("{\"type\":\"comment\",\"text\":\(JSONText.quoted(text))}".utf8)
    }
}
