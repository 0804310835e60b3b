import Glibc

/// A wake-up pipe for a client thread that polls its broker socket itself (`MQTTClient` with a `work`
/// handler): `signal()` from any thread makes the thread's next `poll` return. The one owner of both
/// descriptors (non-blocking, closed in `deinit`).
///
/// Invariant for `@unchecked Sendable`: the descriptors never change after `init`; `signal` only
/// writes a byte (a full pipe already wakes the reader), `drain` is called by the polling thread only.
final class MQTTWake: @unchecked Sendable {
    /// The end to poll for `POLLIN`.
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(SystemError) {
        var ends: [Int32] = [-1, -1]
        _ = try Syscall.retrying("pipe") { pipe(&ends) }
        readEnd = ends[0]
        writeEnd = ends[1]
        for fd in ends { try Syscall.setNonblocking(fd) }
    }

    deinit {
        Syscall.close(readEnd)
        Syscall.close(writeEnd)
    }

    /// Wakes the polling thread (any thread).
    func signal() {
        var byte: UInt8 = 1
        while write(writeEnd, &byte, 1) < 0 && errno == EINTR {}
    }

    /// Empties the pipe (the polling thread, after `poll` saw it readable).
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
