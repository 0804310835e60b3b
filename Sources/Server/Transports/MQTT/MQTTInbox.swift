import Foundation

/// Ingest messages on their way from the MQTT client's thread to the loop thread, bounded in bytes.
///
/// `push` (the client's thread) blocks while the inbox is full, so a loop that falls behind stops the
/// client reading from the broker (which then queues the messages) instead of growing memory; the first
/// push into an empty inbox calls `schedule` (which submits a drain to the loop). `take` (the loop)
/// empties it and lets a waiting push go on.
///
/// Threading invariant: every stored property is guarded by `condition`; that is why the class may be
/// `@unchecked Sendable`.
final class MQTTInbox: @unchecked Sendable {
    /// One ingest message: the site of its topic and its payload.
    struct Message {
        var site: String
        var payload: [UInt8]
    }

    private let condition = NSCondition()
    private var queue: [Message] = []
    private var bytes = 0
    private var closed = false
    private var scheduled = false
    private var _waits = 0
    /// Bytes held before `push` waits (`MQTTConfig.maxInboxBytes`).
    let limit: Int
    private let schedule: @Sendable () -> Void

    init(limit: Int, schedule: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.schedule = schedule
    }

    /// Times a push had to wait for room (the loop was behind).
    var waits: Int { condition.withLock { _waits } }

    /// Queues a message, waiting while the inbox is full. - Returns: false when the inbox is closed
    /// (the service is stopping; the message is not queued).
    @discardableResult
    func push(_ m: Message) -> Bool {
        condition.lock()
        if !queue.isEmpty && bytes + m.payload.count > limit && !closed {
            _waits += 1
            while !queue.isEmpty && bytes + m.payload.count > limit && !closed { condition.wait() }
        }
        guard !closed else { condition.unlock(); return false }
        queue.append(m)
        bytes += m.payload.count
        let first = !scheduled
        scheduled = true
        condition.unlock()
        if first { schedule() }
        return true
    }

    /// Every queued message, oldest first (on the loop thread).
    func take() -> [Message] {
        condition.lock()
        defer { condition.unlock() }
        let all = queue
        queue.removeAll()
        bytes = 0
        scheduled = false
        condition.broadcast()
        return all
    }

    /// Refuses further pushes and releases a waiting one.
    func close() {
        condition.withLock { closed = true; condition.broadcast() }
    }
}
