#if canImport(Glibc)
import Glibc
#endif
public import Positioning

/// The service's clocks. Only the Server layer reads clocks; the engine gets time passed in.
public enum ServiceClock {
    /// Wall-clock time as Unix nanoseconds (the receive time given to lines without a timestamp).
    public static func wallNow() -> Nanoseconds {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Nanoseconds(ts.tv_sec) * 1_000_000_000 + Nanoseconds(ts.tv_nsec)
    }

    /// Monotonic nanoseconds (deadlines, rates, uptime); never goes back.
    public static func monotonicNow() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
