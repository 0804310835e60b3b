#if canImport(Glibc)
import Glibc
#endif

/// A wake-up pipe: `signal()` from any thread makes the poll of the thread that watches `readEnd`
/// return, and that thread `drain()`s it. The loop's `Poller` and an MQTT client that polls its own
/// socket (`MQTTClient` with `ownLoop`) each have one. The one owner of both descriptors
/// (non-blocking, closed in `deinit`).
///
/// Invariant for `@unchecked Sendable`: the descriptors never change after `init`; `signal` only
/// writes a byte (a full pipe already wakes the reader), and only the polling thread calls `drain`.
final class WakePipe: @unchecked Sendable {
    /// The end to poll for readability.
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

    /// Empties the pipe (the polling thread, once its poll saw `readEnd` readable). Allocates nothing.
    func drain() {
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        while withUnsafeMutableBytes(of: &buffer, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
