import Foundation

/// A compact fixed-width table of figures, printed with a title; the last column is usually a verdict.
struct Table {
    var title: String
    var columns: [String]
    var rows: [[String]] = []

    init(_ title: String, columns: [String]) {
        self.title = title
        self.columns = columns
    }

    mutating func add(_ cells: [String]) { rows.append(cells) }

    /// Prints the title, the header and the rows: first column left-aligned, the others right-aligned.
    func print() {
        var widths = columns.map(\.count)
        for row in rows { for (i, c) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        Swift.print("\n" + title)
        for row in [columns] + rows {
            var line = ""
            for (i, cell) in row.enumerated() where i < widths.count {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                line += i == 0 ? cell + pad : "  " + pad + cell
            }
            Swift.print(line)
        }
    }
}

/// Formatting helpers: "-" for values that are not finite.
enum Fmt {
    static func f(_ v: Double, _ decimals: Int = 3) -> String {
        v.isFinite ? String(format: "%.\(decimals)f", v) : "-"
    }
    static func pct(_ v: Double?) -> String { v.map { $0.isFinite ? String(format: "%.1f %%", 100 * $0) : "-" } ?? "-" }
    static func ratio(_ v: Double) -> String { v.isFinite ? String(format: "%.2f×", v) : "-" }
    static func count(_ n: Int) -> String {
        let s = String(n)
        var out = ""
        for (i, ch) in s.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return String(out.reversed())
    }
    static func rate(_ v: Double) -> String { v.isFinite ? count(Int(v.rounded())) : "-" }
}

/// A verdict against a target, remembered for the summary at the end of the run.
enum Verdicts {
    // Written only from the main thread (the bench is single-threaded).
    nonisolated(unsafe) static var all: [(String, Bool)] = []
    /// Every 95 % coverage figure printed so far: scenario, share, verdict.
    nonisolated(unsafe) static var coverage: [(String, Double, String)] = []

    /// "PASS" or "MISS", recorded under `name`.
    static func check(_ name: String, _ ok: Bool) -> String {
        all.append((name, ok))
        return ok ? "PASS" : "MISS"
    }

    /// A figure that could not be measured: "n/a", not recorded as a miss.
    static let unavailable = "n/a"

    static func printSummary() {
        let misses = all.filter { !$0.1 }
        print("\nSummary: \(all.count - misses.count) of \(all.count) targets met"
              + (misses.isEmpty ? "." : "; MISS: " + misses.map(\.0).joined(separator: ", ")))
    }
}

/// Seconds spent by `body`: wall clock (monotonic) and this thread's CPU time. The machine may be
/// shared (other builds running), so rates are computed from CPU time, which counts only this
/// thread's work on its core; the wall time is printed next to it.
struct Timing {
    var wall = 0.0
    var cpu = 0.0

    static func += (a: inout Timing, b: Timing) { a.wall += b.wall; a.cpu += b.cpu }
    static func - (a: Timing, b: Timing) -> Timing { Timing(wall: a.wall - b.wall, cpu: a.cpu - b.cpu) }

    static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}

/// Times `body` (wall and thread CPU).
func measure(_ body: () throws -> Void) rethrows -> Timing {
    let clock = ContinuousClock()
    let cpu0 = Timing.threadCPU(), start = clock.now
    try body()
    let d = clock.now - start
    return Timing(wall: Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18,
                  cpu: Timing.threadCPU() - cpu0)
}

/// Wall-clock seconds of `body`.
func timed(_ body: () throws -> Void) rethrows -> Double { try measure(body).wall }
