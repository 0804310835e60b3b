#if canImport(Glibc)
import Glibc
#endif

/// One TCP socket descriptor and its only owner: closed exactly once, in `close()` or `deinit`.
///
/// Threading: a `Socket` is used by one thread at a time (the event loop for the service's sockets,
/// the caller's thread for a client socket); it is `@unchecked Sendable` only to be handed over once.
public final class Socket: @unchecked Sendable {
    /// The descriptor; -1 once closed.
    public private(set) var fd: Int32

    init(fd: Int32) { self.fd = fd }

    deinit { if fd >= 0 { Syscall.close(fd) } }

    /// Closes the descriptor now (idempotent).
    public func close() {
        if fd >= 0 { Syscall.close(fd) }
        fd = -1
    }

    /// An IPv4 address (`127.0.0.1`, `0.0.0.0`) or an IPv6 one (`::1`, `[::1]`, `::`) and a port.
    /// - Throws: `SystemError` with `EINVAL` when the text is neither.
    static func address(host: String, port: UInt16) throws(SystemError) -> SocketAddress {
        try SocketAddress(host: host, port: port)
    }

    /// A nonblocking listening socket on `host:port` (port 0: any free port; read it with `localPort`).
    /// - Parameters:
    ///   - host: an IPv4 or IPv6 address, e.g. `127.0.0.1` or `::1` (loopback only), `0.0.0.0` (every
    ///     IPv4 interface) or `::` (every interface, IPv6 and, unless the system says otherwise, IPv4).
    ///   - port: the TCP port, or 0.
    ///   - backlog: the kernel's queue of connections not yet accepted (capped by
    ///     `net.core.somaxconn`, 4096 by default on Linux 5.4 and later). A thousand gateways that
    ///     reconnect at once after a restart must fit: beyond the queue, the kernel drops a client's
    ///     SYN, and the client retries only after a second.
    public static func listen(host: String, port: UInt16, backlog: Int32 = 4096) throws(SystemError) -> Socket {
        let a = try address(host: host, port: port)
        let s = Socket(fd: try Syscall.socket(domain: a.family, type: Int32(SOCK_STREAM.rawValue)))
        try Syscall.setNonblocking(s.fd)
        try Syscall.setReuseAddress(s.fd)
        try Syscall.bind(s.fd, a)
        try Syscall.listen(s.fd, backlog: backlog)
        return s
    }

    /// A blocking client connection to `host:port` with `TCP_NODELAY` (for tests, `status`, the demo).
    public static func connect(host: String, port: UInt16) throws(SystemError) -> Socket {
        let a = try address(host: host, port: port)
        let s = Socket(fd: try Syscall.socket(domain: a.family, type: Int32(SOCK_STREAM.rawValue)))
        try Syscall.connect(s.fd, a)
        try? Syscall.setNoDelay(s.fd)
        return s
    }

    /// The local port (after binding port 0).
    public func localPort() throws(SystemError) -> UInt16 { try Syscall.localPort(fd) }

    /// Sets a receive timeout on a blocking socket, so a client read cannot hang forever.
    public func setReceiveTimeout(_ seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sets the kernel's receive buffer size in bytes (tests use a small one to stall a reader sooner).
    public func setReceiveBufferSize(_ bytes: Int32) {
        var v = bytes
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Blocking: writes all of `bytes`. - Throws: `SystemError` (e.g. `EPIPE` when the peer closed).
    public func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try writeAll(raw) } }.get()
    }

    /// Blocking: writes all of `bytes`.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            switch try Syscall.send(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .done(let n): offset += n
            case .wouldBlock: usleep(100)   // only for a nonblocking socket used as a client
            }
        }
    }

    /// Blocking (or with the receive timeout): reads what is available, up to `max` bytes.
    /// - Returns: the bytes; empty at end of stream or when the timeout expired.
    public func read(max: Int = 65536) throws(SystemError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max)
        let result = try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SystemError) in try Syscall.read(fd, raw) }
        }.get()
        switch result {
        case .done(let n): buffer.removeLast(max - n); return buffer
        case .wouldBlock: return []
        }
    }

    /// Half-closes the connection: the peer reads end of stream, this side can still read.
    public func shutdownWrite() { Syscall.shutdownWrite(fd) }
}
