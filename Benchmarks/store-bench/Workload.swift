import Foundation
import Numerics
import Positioning
import Store

/// The site id every generated row belongs to.
let benchSite = "bench"

/// Tag names `T0`…`T<n-1>`, made once (so the timed loops do not build strings).
func tagNames(_ count: Int) -> [String] { (0..<count).map { "T\($0)" } }

/// A plausible 2-D position row (values vary like real ones: they decide SQLite's record sizes).
func makeRow(tag: String, time: Int64, random: inout SeededRandom) -> PositionEstimate {
    let x = random.nextUniform(0, 60), y = random.nextUniform(0, 40)
    let variance = random.nextUniform(0.002, 0.05)
    return PositionEstimate(site: benchSite, tag: tag, position: Vec3(x, y, 1.2),
                            velocity: Vec3(random.nextUniform(-1.5, 1.5), random.nextUniform(-1.5, 1.5), 0),
                            covXX: variance, covXY: random.nextUniform(-0.005, 0.005), covYY: variance * 1.1,
                            anchors: 4 + Int(random.next() % 6), motion: random.next() % 4 == 0 ? .stationary : .moving,
                            time: time)
}

/// Wall seconds since `start` (a `ContinuousClock` instant).
func elapsedSeconds(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

/// CPU seconds (user + system) of the whole process so far, every thread.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
    return s(usage.ru_utime) + s(usage.ru_stime)
}

/// CPU seconds of the calling thread so far.
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// What one insert run measured.
struct InsertRun {
    var rows: Int
    /// Wall seconds from the first append until `flush` returned.
    var seconds: Double
    /// CPU seconds of the process (writer thread, producer, SQLite) over the same span.
    var cpuSeconds: Double
    /// Of `cpuSeconds`, those of a database server's processes (0 for SQLite, inside the process).
    var serverCPUSeconds = 0.0
    var batches: Int
    var dropped: Int
    var rate: Double { Double(rows) / seconds }
    var cpuRate: Double { Double(rows) / cpuSeconds }
}

/// Appends `rows` positions to a fresh `HistoryWriter` (the service's defaults: batches of 4,096,
/// 0.2 s delay) as fast as it takes them, and times from the first append until `flush` returns.
///
/// The rows interleave `tags` tags: round r gives every tag one row, at `start + r × 0.15 s` plus a
/// per-tag jitter of ±0.05 s, so each tag reports every 0.1–0.2 s, as live tags do. Each tag walks:
/// it starts anywhere in the 60 m × 40 m site, and its velocity (up to 1.5 m/s each way, turned a
/// little at every row) carries it on, off the walls; `scattered` puts each row anywhere instead
/// (every row in another grid cell: the most visits `cell_visits` can get). The producer
/// waits while more than 200,000 rows are pending, so nothing is dropped: the writer's backlog
/// makes its batches larger, exactly as under a real load.
func measureInserts(store: any HistoryStorage, tags: Int, rows: Int, start: Int64, seed: UInt64,
                    scattered: Bool = false) -> InsertRun {
    let names = tagNames(tags)
    var random = SeededRandom(seed: seed)
    // Rows made before the clock starts: the figure is the store's, not the generator's.
    var batch: [PositionEstimate] = []
    batch.reserveCapacity(rows)
    var walkers = (0..<tags).map { _ in
        Walker(x: random.nextUniform(0, 60), y: random.nextUniform(0, 40),
               vx: random.nextUniform(-1.5, 1.5), vy: random.nextUniform(-1.5, 1.5))
    }
    for i in 0..<rows {
        let round = Int64(i / tags), tag = i % tags
        let jitter = Int64(random.nextUniform(-0.05, 0.05) * 1e9)
        var row = makeRow(tag: names[tag], time: start + round * 150_000_000 + jitter, random: &random)
        if !scattered {
            walkers[tag].step(seconds: round == 0 ? 0 : 0.15, turn: random.nextUniform(-0.2, 0.2), random.nextUniform(-0.2, 0.2))
            row.position = Vec3(walkers[tag].x, walkers[tag].y, 1.2)
            row.velocity = Vec3(walkers[tag].vx, walkers[tag].vy, 0)
        }
        batch.append(row)
    }
    let writer = store.makeWriter()
    let clock = ContinuousClock.now
    let cpu = processCPUSeconds()
    for i in batch.indices {
        writer.append(batch[i])
        if i % 10_000 == 9_999 {
            while writer.stats.pending > 200_000 { usleep(1_000) }
        }
    }
    writer.flush()
    let elapsed = elapsedSeconds(since: clock)
    let cpuSeconds = processCPUSeconds() - cpu
    let stats = writer.stats
    writer.close()
    return InsertRun(rows: stats.positionsWritten, seconds: elapsed, cpuSeconds: cpuSeconds, batches: stats.batches,
                     dropped: stats.droppedRows)
}

/// A tag walking in the 60 m × 40 m site: position (m) and velocity (m/s, each way within ±1.5).
struct Walker {
    var x: Double, y: Double, vx: Double, vy: Double

    /// Turns the velocity by (`dvx`, `dvy`) m/s (clamped), moves on for `seconds`, and bounces off the walls.
    mutating func step(seconds: Double, turn dvx: Double, _ dvy: Double) {
        vx = min(max(vx + dvx, -1.5), 1.5)
        vy = min(max(vy + dvy, -1.5), 1.5)
        x += vx * seconds
        y += vy * seconds
        if x < 0 || x > 60 { vx = -vx; x = min(max(x, 0), 60) }
        if y < 0 || y > 40 { vy = -vy; y = min(max(y, 0), 40) }
    }
}
