#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import Server

/// The loop's poller on both of its paths: `epoll_pwait2` (nanosecond timeouts, Linux 5.11 and later)
/// and `epoll_wait` (milliseconds), which it falls back to where the kernel or a seccomp filter refuses
/// the first. The service picks the path at run time, so the fallback must work on a machine that never
/// needs it.
@Suite struct PollerTests {
    /// A pipe, both ends non-blocking; closed by the caller.
    static func pipeEnds() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        for fd in ends { try Syscall.setNonblocking(fd) }
        return (ends[0], ends[1])
    }

    /// The events of one `wait`, as (token, bits).
    static func events(_ poller: Poller, timeoutNanoseconds: Int64) throws -> [(UInt64, UInt32)] {
        var seen: [(UInt64, UInt32)] = []
        try poller.wait(timeoutNanoseconds: timeoutNanoseconds) { seen.append(($0, $1)) }
        return seen
    }

    @Test("readiness, interest changes, removal, wake-ups and timeouts", arguments: [true, false])
    func pollsOnEitherPath(precise: Bool) throws {
        let poller = try Poller(precise: precise)
        let (r, w) = try Self.pipeEnds()
        defer { close(r); close(w) }
        try poller.register(r, token: 7)
        try poller.register(w, token: 8, writable: true)
        #expect(poller.count == 3)   // the two ends and the wake-up pipe

        // The write end is writable at once; nothing to read yet.
        var seen = try Self.events(poller, timeoutNanoseconds: 0)
        #expect(seen.count == 1 && seen.first?.0 == 8 && seen.first!.1 & Poller.writable != 0, "\(seen)")
        try poller.modify(w, token: 8, writable: false, readable: false)
        #expect(try Self.events(poller, timeoutNanoseconds: 0).isEmpty)

        // A byte in the pipe: the read end is ready, within a wait that would otherwise last 10 s.
        var byte: UInt8 = 42
        #expect(write(w, &byte, 1) == 1)
        seen = try Self.events(poller, timeoutNanoseconds: 10_000_000_000)
        #expect(seen.count == 1 && seen.first?.0 == 7 && seen.first!.1 & Poller.readable != 0, "\(seen)")
        #expect(read(r, &byte, 1) == 1)   // level-triggered: read, or it stays ready

        // A wake-up from another thread ends a wait without a deadline.
        let waker = Thread { poller.wake() }
        waker.start()
        seen = try Self.events(poller, timeoutNanoseconds: -1)
        #expect(seen.contains { $0.0 == Poller.wakeToken }, "\(seen)")

        // Removed: no more events for it, and a timeout ends the wait.
        poller.remove(r)
        #expect(poller.count == 2)
        // The kernel waits at least the timeout, and epoll_wait rounds 0.3 ms up to 1 ms. (A signal to
        // this thread would end a wait early, so one of a few waits must last that long.)
        var waits: [UInt64] = []
        for _ in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            seen = try Self.events(poller, timeoutNanoseconds: 300_000)
            waits.append(DispatchTime.now().uptimeNanoseconds - start)
            #expect(seen.isEmpty, "\(seen)")
            if waits.last! >= (precise ? 300_000 : 1_000_000) { break }
        }
        #expect(waits.last! >= (precise ? 300_000 : 1_000_000), "waits \(waits) ns")
    }
}
