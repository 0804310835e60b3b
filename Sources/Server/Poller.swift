#if canImport(Glibc)
import Glibc
#endif

/// Readiness polling over the loop's descriptors with `poll(2)`, plus a wake-up pipe; the one owner of
/// the pipe's descriptors (closed in `deinit`).
///
/// Why `poll` and not `epoll`: Swift's `Glibc` module does not export `<sys/epoll.h>` (nor `eventfd`),
/// and a C shim target would need a Package.swift change. The service watches tens of descriptors
/// (gateways, dashboards), where one `poll` costs microseconds; the interface below (tokens, level-
/// triggered read/write interest) is epoll's, so an epoll backend would replace this file alone.
///
/// Registrations carry a 64-bit token, not the descriptor, so an event for a connection closed earlier
/// in the same batch cannot be mistaken for a new connection that reused its descriptor number.
/// Threading: everything but `wake()` runs on the loop thread; `wake()` may be called from any thread
/// (it only writes a byte to the pipe).
final class Poller: @unchecked Sendable {
    /// Event bits handed to `wait`'s body.
    static let readable: UInt32 = 1
    static let writable: UInt32 = 2
    /// Hang-up or error: read to learn what happened.
    static let hangup: UInt32 = 4
    /// The token of the wake-up pipe.
    static let wakeToken: UInt64 = 0

    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var fds: [pollfd] = []
    private var tokens: [UInt64] = []
    private var indexByFD: [Int32: Int] = [:]
    private var ready: [(UInt64, UInt32)] = []

    init() throws(SystemError) {
        var ends: [Int32] = [-1, -1]
        _ = try Syscall.retrying("pipe") { pipe(&ends) }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        for fd in ends { try Syscall.setNonblocking(fd) }
        try register(wakeRead, token: Self.wakeToken)
    }

    deinit {
        Syscall.close(wakeRead)
        Syscall.close(wakeWrite)
    }

    static func mask(writable: Bool, readable: Bool) -> Int16 {
        (readable ? Int16(POLLIN) : 0) | (writable ? Int16(POLLOUT) : 0)
    }

    /// Watches `fd` for reads (and writes when `writable`), level-triggered.
    func register(_ fd: Int32, token: UInt64, writable: Bool = false) throws(SystemError) {
        guard indexByFD[fd] == nil else { throw SystemError("poll register", code: EEXIST) }
        indexByFD[fd] = fds.count
        fds.append(pollfd(fd: fd, events: Self.mask(writable: writable, readable: true), revents: 0))
        tokens.append(token)
    }

    /// Changes the interest of a watched descriptor.
    func modify(_ fd: Int32, token: UInt64, writable: Bool, readable: Bool = true) throws(SystemError) {
        guard let i = indexByFD[fd] else { throw SystemError("poll modify", code: ENOENT) }
        fds[i].events = Self.mask(writable: writable, readable: readable)
        tokens[i] = token
    }

    /// Stops watching `fd` (before closing it).
    func remove(_ fd: Int32) {
        guard let i = indexByFD.removeValue(forKey: fd) else { return }
        let last = fds.count - 1
        if i != last {
            fds[i] = fds[last]
            tokens[i] = tokens[last]
            indexByFD[fds[i].fd] = i
        }
        fds.removeLast()
        tokens.removeLast()
    }

    /// Wakes a `wait` in progress (or the next one). Any thread.
    func wake() {
        var byte: UInt8 = 1
        while write(wakeWrite, &byte, 1) < 0 && errno == EINTR {}
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever) and calls `body(token, events)` for each ready
    /// registration (events: `readable`, `writable`, `hangup` bits). The body may register and remove
    /// descriptors. The wake-up pipe is drained and reported with `wakeToken`.
    func wait(timeoutMilliseconds: Int32, _ body: (UInt64, UInt32) -> Void) throws(SystemError) {
        let n = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds) }
        if n < 0 {
            if errno == EINTR { return }
            throw SystemError("poll", code: errno)
        }
        guard n > 0 else { return }
        ready.removeAll(keepingCapacity: true)
        for i in fds.indices where fds[i].revents != 0 {
            let r = fds[i].revents
            var bits: UInt32 = 0
            if r & Int16(POLLIN) != 0 { bits |= Self.readable }
            if r & Int16(POLLOUT) != 0 { bits |= Self.writable }
            if r & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { bits |= Self.hangup }
            ready.append((tokens[i], bits))
        }
        for (token, bits) in ready {
            if token == Self.wakeToken { drainWake() }
            body(token, bits)
        }
    }

    private func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, 64) }) > 0 {}
    }
}
