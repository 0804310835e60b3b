import Foundation

/// Work handed to the loop by other threads (`ServiceLoop.submit`): a locked list the loop takes at
/// the start of each turn's command step.
///
/// Invariant for `@unchecked Sendable`: `commands` is read and written only with `lock` held.
final class LoopInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var commands: [@Sendable (ServiceLoop) -> Void] = []

    /// Adds a command (any thread).
    func post(_ body: @escaping @Sendable (ServiceLoop) -> Void) {
        lock.withLock { commands.append(body) }
    }

    /// The commands posted since the last call, in order (loop thread).
    func take() -> [@Sendable (ServiceLoop) -> Void] {
        lock.withLock {
            let pending = commands
            commands.removeAll()
            return pending
        }
    }
}
