import Glibc
import Foundation
import Testing
@testable import Server

@Suite struct ListenBacklogTests {
    /// A thousand gateways connect at once (after a restart of the service, say) before its loop has
    /// accepted any: every handshake completes into the listening socket's queue. With a queue of 512,
    /// the kernel drops the SYNs beyond it, and those clients retry only after a second (the test
    /// fails: 487 of 1,000 still connecting).
    @Test func aThousandSimultaneousConnectsFitTheQueue() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4096 {
            limit.rlim_cur = min(4096, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let somaxconn = (try? String(contentsOfFile: "/proc/sys/net/core/somaxconn", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 4096
        let count = min(1000, somaxconn - 16, Int(limit.rlim_cur) - 200)
        #expect(count >= 600, "the system allows a queue of \(somaxconn) and \(limit.rlim_cur) descriptors")

        let listener = try Socket.listen(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = try listener.localPort().bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var clients: [pollfd] = []
        defer { for c in clients { close(c.fd) } }
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            try #require(fd >= 0)
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            let connectError = errno
            try #require(rc == 0 || connectError == EINPROGRESS, "connect: errno \(connectError)")
            clients.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0))
        }
        // A connection whose SYN the kernel dropped stays unwritable until its retry a second later.
        let deadline = Date().addingTimeInterval(0.8)
        var connected = Set<Int32>()
        while connected.count < count, Date() < deadline {
            var waiting = clients.filter { !connected.contains($0.fd) }
            let ms = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&waiting, nfds_t(waiting.count), ms) > 0 else { continue }
            for c in waiting where c.revents & Int16(POLLOUT) != 0 {
                var error: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &size)
                #expect(error == 0, "connection failed: errno \(error)")
                connected.insert(c.fd)
            }
        }
        #expect(connected.count == count, "\(count - connected.count) of \(count) still connecting after 0.8 s")
    }
}
