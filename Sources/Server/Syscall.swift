#if canImport(Glibc)
import Glibc
#endif

/// An error from a system call: the call's name and `errno`, with the C library's message.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failing call, e.g. `bind`.
    public var call: String
    /// The `errno` value.
    public var code: Int32

    public init(_ call: String, code: Int32) { self.call = call; self.code = code }

    public var description: String { "\(call): \(String(cString: strerror(code))) (errno \(code))" }
}

/// The outcome of a nonblocking call: done, or it would have blocked (`EAGAIN`).
enum IOResult<T> {
    case done(T)
    case wouldBlock
}

/// Every raw system call of the Server module, in one place (as NIOPosix's `System.swift`; `poll` and
/// `pipe` are in `Poller`): each retries
/// `EINTR`, reports `EAGAIN` as `.wouldBlock` where it can happen, and throws `SystemError` otherwise.
enum Syscall {
    /// Retries `body` while it fails with `EINTR`; throws on any other failure (a negative result).
    @inline(__always)
    static func retrying<T: BinaryInteger>(_ call: String, _ body: () -> T) throws(SystemError) -> T {
        while true {
            let r = body()
            if r >= 0 { return r }
            if errno != EINTR { throw SystemError(call, code: errno) }
        }
    }

    /// Like `retrying`, but `EAGAIN`/`EWOULDBLOCK` give `.wouldBlock`.
    @inline(__always)
    static func nonblocking<T: BinaryInteger>(_ call: String, _ body: () -> T) throws(SystemError) -> IOResult<T> {
        while true {
            let r = body()
            if r >= 0 { return .done(r) }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            throw SystemError(call, code: e)
        }
    }

    /// Raises the soft limit on open descriptors (`RLIMIT_NOFILE`) towards `wanted`, capped at the hard
    /// limit: each connection holds a descriptor, and a common default soft limit (1,024) is below the
    /// 1,100 connections the service is meant to hold. Never lowers it.
    /// - Parameter wanted: the soft limit asked for.
    /// - Returns: the soft limit before and after; equal when it was high enough or could not be raised.
    static func raiseOpenFileLimit(to wanted: UInt64 = 65_536) -> (before: UInt64, after: UInt64) {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return (0, 0) }
        let before = UInt64(limit.rlim_cur)
        let target = min(wanted, UInt64(limit.rlim_max))  // RLIM_INFINITY is rlim_t.max
        guard before < target else { return (before, before) }
        limit.rlim_cur = rlim_t(target)
        guard setrlimit(resource, &limit) == 0 else { return (before, before) }
        return (before, target)
    }

    static func socket(domain: Int32, type: Int32) throws(SystemError) -> Int32 {
        try retrying("socket") { Glibc.socket(domain, type | Int32(SOCK_CLOEXEC.rawValue), 0) }
    }

    static func setReuseAddress(_ fd: Int32) throws(SystemError) {
        var one: Int32 = 1
        _ = try retrying("setsockopt(SO_REUSEADDR)") {
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    static func setNoDelay(_ fd: Int32) throws(SystemError) {
        var one: Int32 = 1
        _ = try retrying("setsockopt(TCP_NODELAY)") {
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    static func bind(_ fd: Int32, _ address: SocketAddress) throws(SystemError) {
        _ = try retrying("bind") { address.withSockaddr { Glibc.bind(fd, $0, $1) } }
    }

    static func listen(_ fd: Int32, backlog: Int32) throws(SystemError) {
        _ = try retrying("listen") { Glibc.listen(fd, backlog) }
    }

    /// The port a socket is bound to (after binding port 0).
    static func localPort(_ fd: Int32) throws(SystemError) -> UInt16 {
        var a = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try retrying("getsockname") {
            withUnsafeMutablePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        return SocketAddress.port(a)
    }

    /// Accepts a connection as a nonblocking, close-on-exec socket; `.wouldBlock` when none is waiting.
    /// (`accept4` is not exported by Swift's Glibc module, hence `accept` and two `fcntl`s.)
    static func accept(_ fd: Int32) throws(SystemError) -> IOResult<Int32> {
        let result = try nonblocking("accept") { Glibc.accept(fd, nil, nil) }
        guard case .done(let client) = result else { return result }
        do {
            try setNonblocking(client)
        } catch {
            close(client)
            throw error
        }
        return result
    }

    /// Makes a descriptor nonblocking and close-on-exec.
    static func setNonblocking(_ fd: Int32) throws(SystemError) {
        let flags = try retrying("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        _ = try retrying("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        _ = try retrying("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }

    static func connect(_ fd: Int32, _ address: SocketAddress) throws(SystemError) {
        let r = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        // A connect interrupted by a signal goes on asynchronously; a blocking socket then reports the
        // outcome on its first use, which is good enough for the clients (tests, status, demo) that use it.
        if r < 0 && errno != EINTR { throw SystemError("connect", code: errno) }
    }

    /// The peer's `address:port`, or `?` when unknown.
    static func peerName(_ fd: Int32) -> String {
        var a = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let r = withUnsafeMutablePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard r == 0 else { return "?" }
        return SocketAddress.text(a)
    }

    /// Reads into `buffer`; `.done(0)` is end of stream.
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try nonblocking("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Sends without raising `SIGPIPE` (a peer that went away gives `EPIPE` instead).
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try nonblocking("send") { Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends bytes held in an array slice. See `send(_:_:)`.
    static func send(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemError) -> IOResult<Int> {
        try bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try send(fd, raw) } }.get()
    }

    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes a descriptor. `EINTR` is not retried: on Linux the descriptor is released anyway.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}
