import Foundation
public import Server

/// Log lines captured in memory, for a test to read or to wait on (a line appearing is an event:
/// `waitFor` blocks on a condition variable the logger signals, it does not poll).
public final class LogLines: @unchecked Sendable {
    // Invariant: `lines` is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var lines: [String] = []

    public init() {}

    /// A logger that writes here (`level` and above).
    public func logger(level: Logger.Level = .info) -> Logger {
        Logger(level: level) { [self] in append($0) }
    }

    public func append(_ line: String) {
        condition.lock()
        lines.append(line)
        condition.broadcast()
        condition.unlock()
    }

    /// Every line so far.
    public var all: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// The lines so far that contain `text`.
    public func containing(_ text: String) -> [String] { all.filter { $0.contains(text) } }

    /// Blocks until at least `count` lines contain `text`, or `timeout` seconds pass.
    /// - Returns: the lines containing `text` (fewer than `count` when the timeout passed first).
    @discardableResult
    public func waitFor(_ text: String, count: Int = 1, timeout: Double = 5) -> [String] {
        let end = Date().addingTimeInterval(timeout * testTimeScale)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let found = lines.filter { $0.contains(text) }
            if found.count >= count || !condition.wait(until: end) { return lines.filter { $0.contains(text) } }
        }
    }
}
