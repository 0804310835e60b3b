import Foundation
import BenchSupport
import Server
import Wire

/// The floor of the latency measurement: a relay that does no positioning at all. It listens on an
/// ingest and a feed port like the service, takes one dashboard and one gateway connection, and for
/// every tenth ranging line it reads writes `position,site=null,tag=null x=0 TS` to the dashboard,
/// with TS the ranging line's own timestamp, the chunk's lines in one write after each read (the
/// service emits about one position per 9.5 ranging lines of this stream, and also writes a turn's
/// lines at once).
///
/// Run with the same latency client, the same machine and the same minute as the service, it
/// measures what the client, the loopback TCP path, the scheduler and the host cost by themselves:
/// the latency that no service could go below on this machine. Its p99 beside the service's p99 says
/// how much of a tail is the service's.
final class NullRelay: @unchecked Sendable {
    let ingestPort: UInt16
    let feedPort: UInt16
    private let ingest: Socket
    private let feed: Socket
    private let done = DispatchSemaphore(value: 0)
    /// The relay thread's CPU time per line read (µs), known after `wait()`.
    private(set) var cpuPerLine = 0.0

    /// Fixed arithmetic done per ranging line (multiply-adds): the relay then spends as much CPU per
    /// line as a service would, without doing its work.
    private let workPerLine: Int

    /// Nanoseconds per unit of `workPerLine`, timed once (the fastest of five runs of 1,000,000).
    static let nanosecondsPerUnit: Double = {
        var best = Double.infinity
        for _ in 0..<5 {
            let start = ServiceClock.monotonicNow()
            multiplyAdds(1_000_000, seed: 1)
            best = min(best, Double(ServiceClock.monotonicNow() - start) / 1e6)
        }
        return best
    }()

    init(workPerLine: Int = 0) throws {
        self.workPerLine = workPerLine
        ingest = try Socket.listen(host: "127.0.0.1", port: 0)
        feed = try Socket.listen(host: "127.0.0.1", port: 0)
        ingestPort = try ingest.localPort()
        feedPort = try feed.localPort()
        Thread.detachNewThread { [self] in
            relay()
            done.signal()
        }
    }

    /// Waits until the gateway has closed and the relay has stopped.
    func wait() { done.wait() }

    /// Accepts one connection on a nonblocking listener, waiting up to 10 s.
    private static func acceptOne(_ listener: Socket) -> Int32? {
        var p = pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 10_000) == 1 else { return nil }
        let fd = accept(listener.fd, nil, nil)
        return fd >= 0 ? fd : nil
    }

    private func relay() {
        defer { ingest.close(); feed.close() }
        guard let dashboard = Self.acceptOne(feed) else { return }
        defer { close(dashboard) }
        guard let gateway = Self.acceptOne(ingest) else { return }
        defer { close(gateway) }
        var one: Int32 = 1
        _ = setsockopt(dashboard, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var splitter = LineSplitter()
        var input = [UInt8](repeating: 0, count: 65536)
        var output: [UInt8] = []
        var count = 0
        defer {
            var t = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
            cpuPerLine = (Double(t.tv_sec) * 1e6 + Double(t.tv_nsec) * 1e-3) / Double(max(1, count))
        }
        let prefix = Array("position,site=null,tag=null x=0 ".utf8)
        while true {
            let n = input.withUnsafeMutableBytes { Glibc.read(gateway, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            output.removeAll(keepingCapacity: true)
            input.withUnsafeBytes { raw in
                splitter.feed(UnsafeRawBufferPointer(rebasing: raw[0..<n])) { piece in
                    guard case .line(_, let bytes) = piece else { return }
                    count += 1
                    if workPerLine > 0 { multiplyAdds(workPerLine, seed: count) }
                    guard count % 10 == 0, let space = bytes.lastIndex(of: 32) else { return }
                    output += prefix
                    output += bytes[(space + 1)...]
                    output.append(10)
                }
            }
            if output.isEmpty { continue }
            var offset = 0
            while offset < output.count {
                let w = output.withUnsafeBytes { Glibc.write(dashboard, $0.baseAddress! + offset, $0.count - offset) }
                if w <= 0 { return }
                offset += w
            }
        }
    }
}
