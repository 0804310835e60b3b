import Foundation
import Server

/// How much the machine itself slowed during a measurement: a thread that, every 10 ms, times a fixed
/// piece of arithmetic (calibrated to about 0.2 ms, so about 2 % of a core) and keeps the durations.
/// On a virtual machine whose host is busy, the same work takes several times longer in episodes of
/// tens of milliseconds, and every thread of the service slows with it; a latency tail measured in
/// such a run says as much about the host as about the service. The probe shows which it was.
final class MachineProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [(time: Int64, nanoseconds: Int64)] = []
    private var running = true
    private let iterations: Int
    private let done = DispatchSemaphore(value: 0)

    /// Calibrates the work unit and starts the thread.
    init() {
        var n = 20_000
        while MachineProbe.time(n) < 200_000 && n < 1 << 26 { n *= 2 }
        iterations = n
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let start = ServiceClock.monotonicNow()
                let ns = MachineProbe.time(iterations)
                lock.withLock { samples.append((start, ns)) }
                usleep(10_000)
            }
            done.signal()
        }
    }

    /// Nanoseconds taken by `n` dependent multiply-adds.
    private static func time(_ n: Int) -> Int64 {
        let start = ServiceClock.monotonicNow()
        multiplyAdds(n, seed: 1)
        return ServiceClock.monotonicNow() - start
    }

    /// Starts a new measurement window: forgets the samples so far.
    func reset() { lock.withLock { samples.removeAll() } }

    /// Stops the thread.
    func stop() {
        lock.withLock { running = false }
        done.wait()
    }

    /// The window's summary: the share of work units that took at least twice the median, and the
    /// worst slowdown (a unit's time over the median).
    func summary() -> String {
        let s = lock.withLock { samples }
        guard s.count >= 10 else { return "machine probe: too few samples" }
        let sorted = s.map(\.nanoseconds).sorted()
        let median = Double(sorted[sorted.count / 2])
        let slowed = s.filter { Double($0.nanoseconds) >= 2 * median }.count
        let worst = Double(sorted.last!) / median
        return String(format: "machine probe: %.1f %% of %d work units took ≥ 2× their median (%.2f ms), worst %.1f×",
                      100 * Double(slowed) / Double(s.count), s.count, median / 1e6, worst)
    }
}

/// `n` dependent multiply-adds: the fixed work of the machine probe and of `NullRelay`.
func multiplyAdds(_ n: Int, seed: Int) {
    var x = Double(seed)
    for _ in 0..<n { x = x * 1.000_000_1 + 1e-9 }
    if x == 0 { print(x) }   // keeps the loop
}
