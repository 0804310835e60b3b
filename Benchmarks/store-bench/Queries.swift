import Foundation
import Positioning
import Store

/// Timings of one query repeated, in milliseconds.
struct Timings {
    var milliseconds: [Double] = []
    /// CPU milliseconds of the querying thread (SQLite runs on it), per query.
    var cpuMilliseconds: [Double] = []
    var cpuMedian: Double { cpuMilliseconds.isEmpty ? .nan : cpuMilliseconds.sorted()[cpuMilliseconds.count / 2] }
    var rows: [Int] = []
    var median: Double { milliseconds.isEmpty ? .nan : milliseconds.sorted()[milliseconds.count / 2] }
    var max: Double { milliseconds.max() ?? .nan }
    var medianRows: Int { rows.isEmpty ? 0 : rows.sorted()[rows.count / 2] }
}

/// One hour of one deep tag: the tag's name and the `[from, to)` range, Unix ns.
struct HourQuery {
    var tag: String
    var from: Int64
    var to: Int64
}

/// `count` random (tag, hour) pairs of the fixture's deep tags, all different tags. When a tag's
/// history is shorter than an hour (small `--rows`), the hour covers all of it.
func randomHours(_ fixture: Fixture, count: Int, seed: UInt64) -> [HourQuery] {
    var random = SeededRandom(seed: seed ^ 0x40075)
    var tags = Array(0..<Fixture.deepTags)
    tags.shuffle(using: &random)
    let hour: Int64 = 3_600_000_000_000
    return tags.prefix(count).map { tag in
        let last = fixture.deepEnd[tag]
        let latestStart = Swift.max(fixture.start, last - hour)
        let from = fixture.start + Int64(random.nextUniform() * Double(latestStart - fixture.start))
        return HourQuery(tag: "T\(tag)", from: from, to: from + hour)
    }
}

/// Fetches one tag's hour the way `sextant history --site S --tag T --from --to` does
/// (`forEachPositionPage`, pages of 50,000 rows), keeping the rows as the command's formatter would
/// get them. - Returns: (milliseconds, rows).
func fetchHour(_ store: HistoryStore, _ q: HourQuery) throws -> (Double, Int) {
    let clock = ContinuousClock.now
    var rows = 0
    var checksum = 0.0
    try store.forEachPositionPage(site: benchSite, tag: q.tag, from: q.from, to: q.to) { page in
        rows += page.count
        checksum += page.last?.position.x ?? 0
    }
    let ms = elapsedSeconds(since: clock) * 1e3
    guard checksum.isFinite else { fatalError("unreachable: keeps the rows alive") }
    return (ms, rows)
}

/// Times `queries` in order. - Returns: their timings.
func timeHours(_ store: HistoryStore, _ queries: [HourQuery]) throws -> Timings {
    var t = Timings()
    for q in queries {
        let cpu = threadCPUSeconds()
        let (ms, rows) = try fetchHour(store, q)
        t.cpuMilliseconds.append((threadCPUSeconds() - cpu) * 1e3)
        t.milliseconds.append(ms)
        t.rows.append(rows)
    }
    return t
}

/// Times the `--last` path `repeats` times: `lastPositions(site:)`, what `sextant history --site S
/// --last` runs before formatting.
func timeLastPositions(_ store: HistoryStore, repeats: Int) throws -> Timings {
    var t = Timings()
    for _ in 0..<repeats {
        let clock = ContinuousClock.now, cpu = threadCPUSeconds()
        let last = try store.lastPositions(site: benchSite)
        t.milliseconds.append(elapsedSeconds(since: clock) * 1e3)
        t.cpuMilliseconds.append((threadCPUSeconds() - cpu) * 1e3)
        t.rows.append(last.count)
    }
    return t
}
