import Foundation
import Server

/// How much the machine itself slowed during a measurement: a thread that, every 10 ms, times a fixed
/// piece of arithmetic (calibrated to about 0.2 ms, so about 2 % of a core) and keeps the durations.
/// On a virtual machine whose host is busy, the same work takes several times longer in episodes of
/// tens of milliseconds, and every thread of the service slows with it; a latency tail measured in
/// such a run says as much about the host as about the service. The probe shows which it was. It also
/// times its own wake-ups: how late each 10 ms sleep ends is what a service thread waiting for a
/// packet pays on this machine at that moment.
public final class MachineProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [(time: Int64, nanoseconds: Int64, wakeLate: Int64)] = []
    private var running = true
    private let iterations: Int
    private let done = DispatchSemaphore(value: 0)

    /// Calibrates the work unit and starts the thread.
    public init() {
        var n = 20_000
        while MachineProbe.time(n) < 200_000 && n < 1 << 26 { n *= 2 }
        iterations = n
        Thread.detachNewThread { [self] in
            var late: Int64 = 0
            while lock.withLock({ running }) {
                let start = ServiceClock.monotonicNow()
                let ns = MachineProbe.time(iterations)
                lock.withLock { samples.append((start, ns, late)) }
                let asleep = ServiceClock.monotonicNow()
                usleep(10_000)
                late = max(0, ServiceClock.monotonicNow() - asleep - 10_000_000)
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
    public func reset() { lock.withLock { samples.removeAll() } }

    /// Stops the thread.
    public func stop() {
        lock.withLock { running = false }
        done.wait()
    }

    /// The window's figures: the share of work units that took at least twice the median, the
    /// longest unit (its excess over the median is a stall the probe's thread sat through), and how
    /// late its wake-ups were (p99 and worst, ms). Nil with fewer than 10 samples.
    public func window() -> (units: Int, slowedShare: Double, medianMs: Double, worstMs: Double,
                             wakeLateP99Ms: Double, wakeLateMaxMs: Double)? {
        let s = lock.withLock { samples }
        guard s.count >= 10 else { return nil }
        let sorted = s.map(\.nanoseconds).sorted()
        let median = Double(sorted[sorted.count / 2])
        let slowed = s.filter { Double($0.nanoseconds) >= 2 * median }.count
        let late = s.dropFirst().map(\.wakeLate).sorted()
        return (s.count, Double(slowed) / Double(s.count), median / 1e6, Double(sorted.last!) / 1e6,
                Double(late[min(late.count - 1, late.count * 99 / 100)]) / 1e6, Double(late.last!) / 1e6)
    }

    /// The window's summary, one line.
    public func summary() -> String {
        guard let w = window() else { return "machine probe: too few samples" }
        return String(format: "machine probe: %.1f %% of %d work units took ≥ 2× their median (%.2f ms), worst %.1f×; "
                      + "its wake-ups late by p99 %.2f ms, worst %.2f ms",
                      100 * w.slowedShare, w.units, w.medianMs, w.worstMs / w.medianMs, w.wakeLateP99Ms, w.wakeLateMaxMs)
    }
}

/// `n` dependent multiply-adds: the fixed work of the machine probe and of `NullRelay`.
public func multiplyAdds(_ n: Int, seed: Int) {
    var x = Double(seed)
    for _ in 0..<n { x = x * 1.000_000_1 + 1e-9 }
    if x == 0 { print(x) }   // keeps the loop
}
