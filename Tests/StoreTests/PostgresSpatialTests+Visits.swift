import Foundation
import Numerics
import Positioning
import Testing
@testable import Store

/// `sextant_inside` through `cell_visits` against brute force (`ST_Intersects` on every row of the
/// window), over histories made to miss a visit if the writer or the query gets one case wrong.
extension PostgresSpatialTests {
    /// Brute force: the (tag id, time) of every row whose point intersects `wkt` in [from, to).
    static let bruteForce = """
        SELECT tag_id, t_ns FROM positions
        WHERE ST_Intersects(geom, ST_GeomFromText($1)) AND t_ns >= $2 AND t_ns < $3 ORDER BY 1, 2
        """
    static let throughVisits = "SELECT tag_id, t_ns FROM sextant_inside(ST_GeomFromText($1), $2, $3) ORDER BY 1, 2"
    /// Rows with a point that no visit covers (the invariant `sextant_inside` relies on): none.
    static let uncovered = """
        SELECT count(*) FROM positions p WHERE p.geom IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM cell_visits v WHERE v.tag_id = p.tag_id AND v.cell = sextant_cell(p.x, p.y)
                AND v.t_ns <= p.t_ns AND sextant_visit_bucket(v.t_ns) = sextant_visit_bucket(p.t_ns))
        """

    /// A tag's rows of one walk: a point on a 0.25 m lattice (exact in binary) every 100–400 ms, some
    /// tags fast (crossing many cells in one bucket), some standing, some jumping far, some rows
    /// without a place.
    static func walks(seed: UInt64, tags: Int, steps: Int) -> [[PositionEstimate]] {
        var random = SeededRandom(seed: seed)
        return (0..<tags).map { tag in
            let stride = [1, 2, 8][tag % 3]                      // quarter metres per step, at most
            var x = Double(Int(random.next() % 200) - 100) / 4, y = Double(Int(random.next() % 200) - 100) / 4
            var time = Int64(random.next() % 10_000_000_000) - 30_000_000_000   // buckets before and after 0
            var out: [PositionEstimate] = []
            for step in 0..<steps {
                time += 100_000_000 + Int64(random.next() % 300_000_000)
                if tag % 4 != 3 {                                  // tag 3, 7, …: standing
                    x += Double(Int(random.next() % UInt64(2 * stride + 1)) - stride) / 4
                    y += Double(Int(random.next() % UInt64(2 * stride + 1)) - stride) / 4
                }
                var e = makeEstimate(tag: "W\(tag)", time: Int64(step))
                e.time = time
                e.position = Vec3(x, y, 0)
                if step % 97 == 50 { e.position = Vec3(x * 40, y * 40, 0) }   // a jump, back on the next row
                if step % 31 == 7 { e.position.x = .nan }
                out.append(e)
            }
            return out
        }
    }

    /// Areas from a few metres to kilometres (each path of `sextant_cell_ranges`), some on cell edges.
    static func areas(_ random: inout SeededRandom) -> [String] {
        var out = ["POLYGON((-200 -100, 200 -100, 200 200, -200 200, -200 -100))",
                   "POLYGON((-500 -500, 500 -500, 500 500, -500 500, -500 -500))",
                   "POLYGON((-15000 -10, 15000 -10, 15000 10, -15000 10, -15000 -10))",
                   "POLYGON((-20 -20, 20 -20, -20 20, -20 -20))"]
        for _ in 0..<5 {
            let x = Double(Int(random.next() % 160) - 80) / 2, y = Double(Int(random.next() % 160) - 80) / 2
            let w = Double(1 + Int(random.next() % 40)) / 2, h = Double(1 + Int(random.next() % 40)) / 2
            out.append("POLYGON((\(x) \(y), \(x + w) \(y), \(x + w) \(y + h), \(x) \(y + h), \(x) \(y)))")
        }
        return out
    }

    /// Windows over the walks' times: none, whole buckets, and ends inside buckets.
    static func windows(_ random: inout SeededRandom, within range: ClosedRange<Int64>) -> [(Int64, Int64)] {
        var out: [(Int64, Int64)] = [(.min, .max), (-20_000_000_000, 10_000_000_000)]
        let span = UInt64(range.upperBound - range.lowerBound)
        for _ in 0..<4 {
            let a = range.lowerBound + Int64(random.next() % span), b = range.lowerBound + Int64(random.next() % span)
            out.append((min(a, b), max(a, b) + 1))
        }
        return out
    }

    /// Compares `sextant_inside` with brute force for every area and window, and checks the invariant.
    static func expectExact(_ c: PostgresConnection, _ random: inout SeededRandom, range: ClosedRange<Int64>,
                            _ stage: String) throws {
        #expect(try c.query(uncovered).int64(0, 0) == 0, "\(stage): every row with a point has a visit")
        var compared = 0
        for area in areas(&random) {
            for (from, to) in windows(&random, within: range) {
                let parameters = [area, String(from), String(to)]
                let expected = try c.query(bruteForce, parameters), found = try c.query(throughVisits, parameters)
                let e = (0..<expected.count).map { [expected.int64($0, 0), expected.int64($0, 1)] }
                let f = (0..<found.count).map { [found.int64($0, 0), found.int64($0, 1)] }
                let same = f == e   // not the arrays themselves in the message: thousands of rows
                let firstDifference = (0..<min(f.count, e.count)).first { f[$0] != e[$0] } ?? min(f.count, e.count)
                #expect(same, "\(stage): \(area) over [\(from), \(to)): \(f.count) rows, brute force \(e.count), first difference at \(firstDifference)")
                compared += e.count
            }
        }
        #expect(compared > 0, "\(stage): the areas hold rows")
    }

    @Test("sextant_inside equals brute force: restarts mid-bucket, replaced rows, two writers, retention, late rows", arguments: [1, 2, 3] as [UInt64])
    func insideEqualsBruteForce(seed: UInt64) throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        let store = try PostgresHistoryStore(url: database.url)
        #expect(store.hasCells)
        let c = try PostgresConnection(url: database.url)
        var random = SeededRandom(seed: seed &* 7919)
        let walks = Self.walks(seed: seed, tags: 8, steps: 360)
        let all = walks.flatMap { $0 }
        let range = (all.map(\.time).min() ?? 0)...(all.map(\.time).max() ?? 0)
        func rows(_ steps: Range<Int>) -> [PositionEstimate] { walks.flatMap { $0[steps] } }
        func write(_ rows: [PositionEstimate], _ writer: HistoryWriter) {
            for e in rows { writer.append(e) }
            writer.flush()
        }

        // One writer, batches that end anywhere in a bucket.
        var writer = store.makeWriter(batchSize: 37 + Int(seed), maxDelay: .seconds(60))
        write(rows(0..<100), writer)
        // A restart mid-bucket: a fresh writer knows nothing of the visits stored.
        writer.close()
        writer = store.makeWriter(batchSize: 53, maxDelay: .seconds(60))
        write(rows(100..<160), writer)
        try Self.expectExact(c, &random, range: range, "after a restart")

        // Rows already stored, again with other points (the later row wins, through the staging
        // table), with new rows in the same batches.
        var replaced = rows(120..<180)
        for i in replaced.indices where i % 3 == 0 {
            replaced[i].position = Vec3(replaced[i].position.y + 9, replaced[i].position.x - 5, 0)
        }
        // and a (tag, time) twice in one batch: the later row is the one written.
        var repeated: [PositionEstimate] = []
        for e in rows(180..<190) {
            var first = e
            first.position = Vec3(e.position.x - 7, e.position.y + 3, 0)
            repeated += [first, e]
        }
        write(replaced + repeated, writer)
        try Self.expectExact(c, &random, range: range, "after replaced rows")

        // Two writers (two instances) writing the same tags at once, alternate rows each.
        let other = store.makeWriter(batchSize: 41, maxDelay: .seconds(60))
        for (i, e) in rows(190..<260).enumerated() { (i % 2 == 0 ? writer : other).append(e) }
        writer.flush()
        other.flush()
        other.close()
        try Self.expectExact(c, &random, range: range, "after two writers")

        // Retention cutting inside a bucket, while the writer lives on: its later rows in the same
        // cells and buckets, and rows older than the cut written late.
        let cut = walks[0][200].time + 3_000_000_000
        let policy = RetentionPolicy(fullRate: 2_000_000_000, keep: 4_000_000_000)
        let result = try store.applyRetention(policy, now: cut + policy.keep, batchSize: 7)
        #expect(result.positionsDeleted > 0 && result.positionsThinned > 0)
        #expect(try c.query("SELECT count(*) FROM cell_visits WHERE t_ns < $1", [String(cut)]).int64(0, 0) > 0,
                "visits before the cut that rows still need stay")
        try Self.expectExact(c, &random, range: range, "after retention")
        write(rows(260..<330), writer)
        let late = rows(0..<200).filter { $0.time < cut && $0.time % 9 == 0 }
        #expect(!late.isEmpty)
        write(late, writer)
        try Self.expectExact(c, &random, range: range, "after writing on past the cut, and late rows")
        _ = try store.applyRetention(policy, now: cut + policy.keep + 1, batchSize: 5)
        write(rows(330..<360), writer)
        writer.close()
        try Self.expectExact(c, &random, range: range, "after a second retention pass")
    }

    @Test("one visit per tag, cell and 10 s bucket: a standing tag writes one a bucket, a walking one each cell it enters")
    func fewVisits() throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        let store = try PostgresHistoryStore(url: database.url)
        let writer = store.makeWriter(batchSize: 50, maxDelay: .seconds(60))
        var expected = Set<[Int64]>()
        for step in 0..<600 {   // 60 s at 10 Hz: standing at (2, 2); walking 1 m/s along y = 1
            let time = Int64(step) * 100_000_000
            var standing = makeEstimate(tag: "S", time: time)
            standing.position = Vec3(2, 2, 0)
            var walking = makeEstimate(tag: "M", time: time)
            walking.position = Vec3(Double(step) / 10, 1, 0)
            writer.append(standing)
            writer.append(walking)
            expected.insert([PostgresSchema.cell(x: Double(step) / 10, y: 1)!, CellVisits.bucket(time)])
        }
        writer.close()
        let c = try PostgresConnection(url: database.url)
        let counts = try c.query("""
            SELECT t.tag, count(*) FROM cell_visits v JOIN tags t ON t.id = v.tag_id GROUP BY t.tag ORDER BY t.tag
            """)
        #expect(counts.count == 2)
        #expect(counts.string(0, 0) == "M" && Int(counts.int64(0, 1)) == expected.count, "each (cell, bucket) once")
        #expect(counts.string(1, 0) == "S" && counts.int64(1, 1) == 6, "60 s standing: 6 buckets")
        #expect(expected.count < 30, "1 m/s over 4 m cells: about 3 visits per 10 s bucket")
    }

    @Test("a visit that retention deleted is not relied on: the writer stores a new one")
    func prunedVisitNotReliedOn() throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        let store = try PostgresHistoryStore(url: database.url)
        let writer = store.makeWriter(batchSize: 1, maxDelay: .seconds(60))
        // One row at 1 s in cell (0, 0); retention deletes it and its visit (nothing of the tag is
        // left in that bucket); the writer then writes the same cell at 5 s, in the same bucket.
        var e = makeEstimate(tag: "A", time: 1_000_000_000)
        e.position = Vec3(1, 1, 0)
        writer.append(e)
        writer.flush()
        let policy = RetentionPolicy(fullRate: 1, keep: 1)
        _ = try store.applyRetention(policy, now: 2_000_000_001)
        let c = try PostgresConnection(url: database.url)
        #expect(try c.query("SELECT count(*) FROM cell_visits").int64(0, 0) == 0)
        e.time = 5_000_000_000
        writer.append(e)
        writer.close()
        #expect(try c.query(Self.uncovered).int64(0, 0) == 0)
        let inside = try store.positionsInside(site: "demo-warehouse", polygon: "POLYGON((0 0, 2 0, 2 2, 0 2, 0 0))")
        #expect(inside.map(\.time) == [5_000_000_000])
    }

    @Test("a database with the B-tree on every row's cell gets its visits from the rows, and loses the column and index")
    func upgradeFromCellIndex() throws {
        let (database, c) = try TestPostgresDatabase.olderLayout("""
            DROP TABLE cell_visits, cell_visits_pruned;
            ALTER TABLE positions ADD COLUMN cell bigint;
            CREATE INDEX positions_cell ON positions (cell, t_ns);
            """)
        defer { database.drop() }
        let old = try PostgresHistoryStore(url: database.url, spatial: false)
        #expect(old.isSpatial && !old.hasCells)
        let walks = Self.walks(seed: 9, tags: 4, steps: 200)
        let writer = old.makeWriter()
        for e in walks.flatMap({ $0 }) { writer.append(e) }
        writer.close()
        try c.execute("UPDATE positions SET cell = sextant_cell(x, y)")
        let store = try PostgresHistoryStore(url: database.url)
        #expect(store.hasCells)
        let columns = try c.query("SELECT count(*) FROM information_schema.columns WHERE table_name = 'positions' AND column_name = 'cell'")
        #expect(columns.int64(0, 0) == 0)
        #expect(try Self.positionIndexes(c) == ["positions_pkey"])
        var random = SeededRandom(seed: 9)
        let times = walks.flatMap { $0.map(\.time) }
        try Self.expectExact(c, &random, range: times.min()!...times.max()!, "after the upgrade")
    }
}
