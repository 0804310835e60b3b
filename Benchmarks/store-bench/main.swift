// store-bench: figures of the history store (SQLite) that `sextant serve` writes and `sextant
// history` reads, each printed next to its target with PASS or MISS.
//
//   swift build -c release --product store-bench && .build/release/store-bench [--quick] [--rows N]
//
// See `Options.help` (`--help`) for what is measured and how.
import Foundation
import Numerics
import Positioning
import Store

// Like `sextant`: one BLAS thread, set before any LAPACK call (OpenBLAS's worker stays idle).
LAPACK.useOneThread()

let options = Options(Array(CommandLine.arguments.dropFirst()))
let root = options.directory
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("sextant-store-bench-\(UUID().uuidString)").path
do {
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
} catch {
    FileHandle.standardError.write(Data("store-bench: cannot create '\(root)': \(error)\n".utf8))
    exit(73)
}
let started = ContinuousClock.now
var misses: [String] = []

func fmt(_ v: Double, _ decimals: Int = 0) -> String {
    let s = String(format: "%.\(decimals)f", v)
    guard decimals == 0, abs(v) >= 10_000 else { return s }
    var digits = Array(s), out: [Character] = []  // thousands separators for big whole numbers
    let sign = digits.first == "-" ? digits.removeFirst() : nil
    for (i, c) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return (sign.map { String($0) } ?? "") + String(out)
}

/// Prints one figure with its target and verdict (and remembers a miss for the summary).
@MainActor func figure(_ name: String, _ measured: String, target: String, pass: Bool?) {
    let verdict = pass.map { $0 ? "PASS" : "MISS" } ?? ""
    print("\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(measured)   target \(target)  \(verdict)")
    if pass == false { misses.append("\(name): \(measured) (target \(target))") }
}

/// An insert run: the rate per CPU second decides (the machine is shared), the wall rate is beside it.
@MainActor func insertFigure(_ name: String, _ run: InsertRun) {
    figure(name, "\(fmt(run.cpuRate)) positions/CPU-s, \(fmt(run.rate)) positions/s wall "
           + "(\(fmt(Double(run.rows))) in \(fmt(run.seconds, 2)) s, \(fmt(run.cpuSeconds, 2)) CPU-s"
           + (run.serverCPUSeconds > 0 ? " = client \(fmt(run.cpuSeconds - run.serverCPUSeconds, 2)) + server "
              + "\(fmt(run.serverCPUSeconds, 2))" : "") + ", "
           + "\(run.batches) batches, \(run.dropped) dropped)",
           target: "≥ 200,000/s", pass: run.cpuRate >= 200_000 && run.dropped == 0)
}

@MainActor func progress(_ message: String) {
    FileHandle.standardError.write(Data("store-bench: \(message) [\(fmt(elapsedSeconds(since: started))) s]\n".utf8))
}

let insertRows = options.quick ? 300_000 : 2_000_000
let t0: Int64 = 1_767_225_600_000_000_000  // 2026-01-01T00:00:00Z
print("store-bench\(options.quick ? " --quick" : ""): \(fmt(Double(options.rows))) rows in the big history, "
      + "\(fmt(Double(insertRows))) rows per insert run, \(ProcessInfo.processInfo.activeProcessorCount) cores, in \(root)")

do {
    // 1. Insert rate into empty databases, through the real writer.
    var interleavedBytesPerMillion = 0.0
    for tags in [1_000, 10_000] {
        let dir = (root as NSString).appendingPathComponent("insert-\(tags)")
        progress("insert run: \(fmt(Double(insertRows))) rows, \(fmt(Double(tags))) tags, empty database")
        var store: HistoryStore? = try HistoryStore(directory: dir)
        let run = measureInserts(store: store!, tags: tags, rows: insertRows, start: t0, seed: options.seed,
                                 scattered: options.scattered)
        let path = store!.path
        store = nil  // the last connection closes: checkpointed, WAL removed
        insertFigure("insert, \(fmt(Double(tags))) tags, empty database", run)
        if tags == 10_000 { interleavedBytesPerMillion = Double(databaseBytes(path)) / (Double(run.rows) / 1e6) }
        try? FileManager.default.removeItem(atPath: dir)
        if let server = options.postgres {
            progress("insert run: the same rows into PostgreSQL (COPY), empty database")
            let database = try ScratchPostgres(server: server, name: "store_bench_\(tags)")
            let pg = try PostgresHistoryStore(url: database.url, spatial: !options.noPostGIS)
            let spatial = pg.isSpatial
            let serverBefore = database.serverCPUSeconds()
            var pgRun = measureInserts(store: pg, tags: tags, rows: insertRows, start: t0, seed: options.seed,
                                       scattered: options.scattered)
            // The server does most of the work: its CPU counts too (when it runs on this machine).
            if let before = serverBefore, let after = database.serverCPUSeconds() {
                pgRun.serverCPUSeconds = after - before
                pgRun.cpuSeconds += pgRun.serverCPUSeconds
            }
            insertFigure("insert PostgreSQL\(spatial ? "+PostGIS" : "")\(serverBefore == nil ? " (client CPU only)" : ""), "
                         + "\(fmt(Double(tags))) tags", pgRun)
            figure("  PostgreSQL / SQLite, wall rows/s", fmt(pgRun.rate / run.rate, 2) + "x", target: "printed", pass: nil)
            if options.keep { print("kept: \(database.url)") } else { database.drop() }
        }
    }
    if options.insertsOnly {
        print("total \(fmt(elapsedSeconds(since: started), 1)) s; " + (misses.isEmpty ? "every target met"
              : "missed: " + misses.joined(separator: "; ")))
        exit(0)
    }

    // 2. The big history.
    let dir = (root as NSString).appendingPathComponent("history")
    var fixture = Fixture(rows: options.rows, start: t0)
    progress("writing the big history: \(fmt(Double(options.rows))) rows (1,000 tags × \(fmt(Double(fixture.rowsPerDeepTag))) "
             + "+ 9,000 tags × 10), in large transactions through HistoryWriter")
    var store: HistoryStore? = try HistoryStore(directory: dir)
    fixture.load(into: store!, seed: options.seed)
    let path = store!.path
    store = nil
    let bytes = databaseBytes(path)
    progress("big history written")
    figure("big history: bulk load through HistoryWriter", "\(fmt(Double(fixture.rows))) rows in \(fmt(fixture.seconds, 1)) s "
           + "= \(fmt(Double(fixture.rows) / fixture.seconds)) rows/s (tag by tag; a fixture, not the insert figure)",
           target: "—", pass: nil)
    figure("size, bulk-loaded history", "\(fmt(Double(bytes) / (Double(fixture.rows) / 1e6) / 1e6, 1)) MB per million positions "
           + "(\(fmt(Double(bytes) / 1e9, 2)) GB)", target: "printed", pass: nil)
    figure("size, interleaved writer (10,000 tags)", "\(fmt(interleavedBytesPerMillion / 1e6, 1)) MB per million positions",
           target: "printed", pass: nil)

    // 3. One tag's hour: cold-ish (fresh connection, file dropped from the OS cache), then warm.
    let queries = randomHours(fixture, count: options.quick ? 5 : 10, seed: options.seed)
    let dropped = dropFromPageCache(path)
    let reader = try HistoryStore(directory: dir)
    let cold = try timeHours(reader, queries)
    var warm = Timings()
    for _ in 0..<3 {
        let t = try timeHours(reader, queries)
        warm.milliseconds += t.milliseconds
        warm.cpuMilliseconds += t.cpuMilliseconds
        warm.rows += t.rows
    }
    let hourRows = "median \(fmt(Double(cold.medianRows))) rows per hour"
    figure("one tag's hour, cold-ish (\(queries.count) tags)", "median \(fmt(cold.median, 1)) ms, max \(fmt(cold.max, 1)) ms, "
           + "CPU median \(fmt(cold.cpuMedian, 1)) ms "
           + "(\(hourRows)\(dropped ? "" : "; the OS cache could not be dropped"))",
           target: "≤ 50 ms (median)", pass: cold.median <= 50)
    figure("one tag's hour, warm (\(warm.milliseconds.count) fetches)", "median \(fmt(warm.median, 1)) ms, max \(fmt(warm.max, 1)) ms, "
           + "CPU median \(fmt(warm.cpuMedian, 1)) ms",
           target: "≤ 50 ms (median)", pass: warm.median <= 50)

    // 4. The last position of 10,000 tags.
    dropFromPageCache(path)
    let lastReader = try HistoryStore(directory: dir)
    let lastCold = try timeLastPositions(lastReader, repeats: 1)
    let lastWarm = try timeLastPositions(lastReader, repeats: 10)
    figure("last positions, cold-ish", "\(fmt(lastCold.max, 1)) ms (CPU \(fmt(lastCold.cpuMedian, 1)) ms) for "
           + "\(fmt(Double(lastCold.medianRows))) tags",
           target: "≤ 50 ms", pass: lastCold.max <= 50 && lastCold.medianRows == 10_000)
    figure("last positions, warm (10 runs)", "median \(fmt(lastWarm.median, 1)) ms, max \(fmt(lastWarm.max, 1)) ms, "
           + "CPU median \(fmt(lastWarm.cpuMedian, 1)) ms",
           target: "≤ 50 ms (median)", pass: lastWarm.median <= 50)

    // 5. Insert rate into the big history: 10,000 tags interleaved, after the fixture's end.
    progress("insert run: \(fmt(Double(insertRows))) rows, 10,000 tags, into the big history")
    let after = fixture.deepEnd.max() ?? t0
    let run = measureInserts(store: reader, tags: 10_000, rows: insertRows, start: after + 1_000_000_000, seed: options.seed + 1)
    insertFigure("insert, 10,000 tags, into the big history", run)
} catch {
    FileHandle.standardError.write(Data("store-bench: \(error)\n".utf8))
    if !options.keep { try? FileManager.default.removeItem(atPath: root) }
    exit(1)
}

if !options.keep { try? FileManager.default.removeItem(atPath: root) } else { print("kept: \(root)") }
print("total \(fmt(elapsedSeconds(since: started), 1)) s; " + (misses.isEmpty ? "every target met"
      : "\(misses.count) target(s) missed:\n" + misses.map { "  - \($0)" }.joined(separator: "\n")))
