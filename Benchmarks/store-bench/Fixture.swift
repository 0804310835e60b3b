import Foundation
import Positioning
import Store

/// The big history the queries run on: `deepTags` tags with a row every 0.1–0.2 s, and more tags
/// with `shallowRows` rows each, so that 10,000 tags have a last position.
struct Fixture {
    static let deepTags = 1_000
    static let shallowTags = 9_000
    static let shallowRows = 10

    /// Rows of each deep tag.
    let rowsPerDeepTag: Int
    /// The first time of every tag, Unix ns.
    let start: Int64
    /// The last time of each deep tag, Unix ns (index = tag number).
    var deepEnd: [Int64] = []
    /// Rows committed in all.
    var rows = 0
    /// Wall seconds the load took.
    var seconds = 0.0

    init(rows: Int, start: Int64) {
        rowsPerDeepTag = max(1, (rows - Self.shallowTags * Self.shallowRows) / Self.deepTags)
        self.start = start
    }

    /// Writes the fixture through a `HistoryWriter` (the service's insert code: the same statements,
    /// tag dictionary and last-position upserts), one tag after another in time order, in large
    /// transactions, which is the fast order for the `(tag_id, t_ns)` key. Progress goes to stderr.
    mutating func load(into store: HistoryStore, seed: UInt64) {
        let names = tagNames(Self.deepTags + Self.shallowTags)
        var random = SeededRandom(seed: seed ^ 0x5eed)
        let writer = store.makeWriter(batchSize: 250_000, maxDelay: .seconds(2), maxPending: 2_000_000)
        let clock = ContinuousClock.now
        var lastReport = clock
        let total = rowsPerDeepTag * Self.deepTags + Self.shallowTags * Self.shallowRows
        var appended = 0
        func throttle() {
            while writer.stats.pending > 1_000_000 { usleep(2_000) }
            guard ContinuousClock.now - lastReport > .seconds(5) else { return }
            lastReport = ContinuousClock.now
            let done = writer.stats.positionsWritten, elapsed = elapsedSeconds(since: clock)
            let rate = Double(done) / max(elapsed, 1e-9)
            let eta = rate > 0 ? Double(total - done) / rate : 0
            FileHandle.standardError.write(Data(String(format: "  fixture: %d of %d rows committed, %.0f rows/s, %.0f s elapsed, about %.0f s left\n",
                                                      done, total, rate, elapsed, eta).utf8))
        }
        deepEnd = []
        for tag in 0..<Self.deepTags {
            var t = start + Int64(random.nextUniform(0, 0.2) * 1e9)
            for _ in 0..<rowsPerDeepTag {
                writer.append(makeRow(tag: names[tag], time: t, random: &random))
                t += Int64(random.nextUniform(0.1, 0.2) * 1e9)
                appended += 1
                if appended % 50_000 == 0 { throttle() }
            }
            deepEnd.append(t)
        }
        let shallowStart = start + Int64(Double(rowsPerDeepTag) * 0.15e9)
        for tag in Self.deepTags..<(Self.deepTags + Self.shallowTags) {
            for r in 0..<Self.shallowRows {
                writer.append(makeRow(tag: names[tag], time: shallowStart + Int64(r) * 150_000_000, random: &random))
            }
        }
        writer.flush()
        seconds = elapsedSeconds(since: clock)
        let stats = writer.stats
        writer.close()
        rows = stats.positionsWritten
        if stats.droppedRows > 0 {
            FileHandle.standardError.write(Data("  fixture: \(stats.droppedRows) rows dropped (\(stats.lastError ?? "backlog"))\n".utf8))
        }
    }
}

/// Bytes of the database at `path` with its WAL and shared-memory files (0 for those missing).
func databaseBytes(_ path: String) -> Int {
    [path, path + "-wal"].reduce(0) { sum, p in
        sum + ((try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0)
    }
}

/// Asks the kernel to drop the file's cached pages (clean pages only; harmless to other processes),
/// so the next reads come from the disk. Returns false when it could not (then "cold" is warm).
@discardableResult
func dropFromPageCache(_ path: String) -> Bool {
    var ok = true
    for p in [path, path + "-wal"] where FileManager.default.fileExists(atPath: p) {
        let fd = open(p, O_RDONLY)
        guard fd >= 0 else { ok = false; continue }
        fdatasync(fd)
        if posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED)) != 0 { ok = false }
        close(fd)
    }
    return ok
}
