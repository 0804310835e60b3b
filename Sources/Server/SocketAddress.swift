#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address and port, as the socket calls take it.
struct SocketAddress {
    /// The address family: `AF_INET` or `AF_INET6`.
    let family: Int32
    private var storage = sockaddr_storage()
    /// Bytes of `storage` in use (`sockaddr_in` or `sockaddr_in6`).
    let length: socklen_t

    /// Parses `127.0.0.1`, `0.0.0.0`, `localhost`, `::1`, `[::1]`, `::` (IPv6 text, with or without
    /// brackets) and a port.
    /// - Throws: `SystemError` with `EINVAL` when the text is neither an IPv4 nor an IPv6 address.
    init(host: String, port: UInt16) throws(SystemError) {
        var name = host == "localhost" ? "127.0.0.1" : host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.contains(":") {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, name, &a.sin6_addr) == 1 else { throw SystemError("inet_pton(\(host))", code: EINVAL) }
            family = AF_INET6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: a, as: sockaddr_in6.self) }
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = port.bigEndian
            guard inet_pton(AF_INET, name, &a.sin_addr) == 1 else { throw SystemError("inet_pton(\(host))", code: EINVAL) }
            family = AF_INET
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: a, as: sockaddr_in.self) }
        }
    }

    /// Calls `body` with the address as the `sockaddr` pointer and length the socket calls take.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }

    /// `address:port` of a `sockaddr_storage` filled by the kernel: `127.0.0.1:5000`, `[::1]:5000`;
    /// `?` for another family.
    static func text(_ s: sockaddr_storage) -> String {
        var s = s
        return withUnsafeBytes(of: &s) { raw in
            switch Int32(raw.load(as: sa_family_t.self)) {
            case AF_INET:
                var a = raw.load(as: sockaddr_in.self)
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                guard inet_ntop(AF_INET, &a.sin_addr, &text, socklen_t(INET_ADDRSTRLEN)) != nil else { return "?" }
                return String(cBuffer: text) + ":\(UInt16(bigEndian: a.sin_port))"
            case AF_INET6:
                var a = raw.load(as: sockaddr_in6.self)
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                guard inet_ntop(AF_INET6, &a.sin6_addr, &text, socklen_t(INET6_ADDRSTRLEN)) != nil else { return "?" }
                return "[" + String(cBuffer: text) + "]:\(UInt16(bigEndian: a.sin6_port))"
            default:
                return "?"
            }
        }
    }

    /// The port of a `sockaddr_storage` filled by the kernel (IPv4 or IPv6), 0 for another family.
    static func port(_ s: sockaddr_storage) -> UInt16 {
        var s = s
        return withUnsafeBytes(of: &s) { raw in
            switch Int32(raw.load(as: sa_family_t.self)) {
            case AF_INET: UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
            case AF_INET6: UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
            default: 0
            }
        }
    }
}

extension String {
    /// The text of a C character buffer up to its first NUL (all of it without one), as UTF-8.
    init(cBuffer: [CChar]) {
        self = cBuffer.withUnsafeBytes { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
