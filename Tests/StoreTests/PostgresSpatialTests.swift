import Foundation
import Numerics
import Positioning
import Testing
@testable import Store

@Suite("PostgreSQL with PostGIS: grid cells and the polygon query")
struct PostgresSpatialTests {
    /// The names of the indexes on `positions`, sorted.
    static func positionIndexes(_ c: PostgresConnection) throws -> [String?] {
        let indexes = try c.query("SELECT indexname FROM pg_indexes WHERE tablename = 'positions' ORDER BY 1")
        return (0..<indexes.count).map { indexes.string($0, 0) }
    }

    /// Points on a 0.25 m lattice (exact in binary, so that a point on an edge of a polygon or of a
    /// cell is exactly on it), spread over 1,200 m × 1,200 m around the origin, with some on the
    /// cell edges and some without a place.
    static func walk(tags: Int = 12, steps: Int = 250) -> [PositionEstimate] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {  // a fixed LCG: the same points every run
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var out: [PositionEstimate] = []
        for tag in 0..<tags {
            for step in 0..<steps {
                var e = makeEstimate(tag: "T\(tag)", time: Int64(step) * 1_000_000_000 + Int64(tag))
                let spread = step % 5 == 0 ? 2_400 : 240          // in quarter metres: most within ±30 m
                var x = Double(next(2 * spread + 1) - spread) / 4, y = Double(next(2 * spread + 1) - spread) / 4
                if step % 7 == 0 { x = (x / 4).rounded(.down) * 4 }  // on a cell's edge
                if step % 11 == 0 { y = (y / 4).rounded(.down) * 4 }
                if step % 5 == 0 { x *= 20; y *= 20 }             // out to ±600 m
                if step % 13 == 0 { x = .nan }                    // no place: never inside
                if step % 17 == 0 { y = .nan }
                e.position = Vec3(x, y, 0)
                out.append(e)
            }
        }
        return out
    }

    /// The polygons asked about, each with its membership test (boundary included), and the path of
    /// `sextant_inside` it takes.
    static let areas: [(name: String, wkt: String, contains: @Sendable (Double, Double) -> Bool)] = [
        ("a 4 m × 2 m rectangle on cell edges", "POLYGON((4 0, 8 0, 8 2, 4 2, 4 0))",
         { x, y in x >= 4 && x <= 8 && y >= 0 && y <= 2 }),
        ("a triangle over 625 cells, tested cell by cell", "POLYGON((-50 -50, 50 -50, -50 50, -50 -50))",
         { x, y in x >= -50 && y >= -50 && x + y <= 0 }),
        ("400 m × 300 m: columns of cells, looked up cell by cell", "POLYGON((-200 -100, 200 -100, 200 200, -200 200, -200 -100))",
         { x, y in x >= -200 && x <= 200 && y >= -100 && y <= 200 }),
        ("1,000 m × 1,000 m: ranges of cells per column", "POLYGON((-500 -500, 500 -500, 500 500, -500 500, -500 -500))",
         { x, y in x >= -500 && x <= 500 && y >= -500 && y <= 500 }),
        ("30 km × 20 m: one range of cells", "POLYGON((-15000 -10, 15000 -10, 15000 10, -15000 10, -15000 -10))",
         { x, y in x >= -15_000 && x <= 15_000 && y >= -10 && y <= 10 }),
    ]

    @Test("inside a polygon and a time window, through the cell index: exact for small and large polygons, none without a place")
    func insidePolygonAndWindow() throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        let store = try PostgresHistoryStore(url: database.url)
        #expect(store.isSpatial && store.hasCells, "PostGIS is in scripts/deps.d/postgres, so the test server has it")
        let rows = Self.walk()
        let writer = store.makeWriter(batchSize: 700, maxDelay: .milliseconds(5))
        for e in rows { writer.append(e) }
        writer.close()
        #expect(writer.stats.positionsWritten == rows.count)
        let from: Int64 = 40_000_000_000, to: Int64 = 200_000_000_000
        let c = try PostgresConnection(url: database.url)
        for area in Self.areas {
            let expected = rows.filter { e in
                e.time >= from && e.time < to && !e.position.x.isNaN && !e.position.y.isNaN && area.contains(e.position.x, e.position.y)
            }.sorted { ($0.tag, $0.time) < ($1.tag, $1.time) }
            let found = try store.positionsInside(site: "demo-warehouse", polygon: area.wkt, from: from, to: to)
            #expect(found.count == expected.count, "\(area.name)")
            #expect(found.map(\.tag) == expected.map(\.tag) && found.map(\.time) == expected.map(\.time), "\(area.name)")
            #expect(!expected.isEmpty, "\(area.name): the walk reaches it")
            // The documented query: the same rows with plain SQL.
            let counted = try c.query("SELECT count(*) FROM sextant_inside(ST_GeomFromText($1), $2, $3)",
                                      [area.wkt, String(from), String(to)])
            #expect(Int(counted.int64(0, 0)) == expected.count, "\(area.name)")
        }
        // Over the whole time, a point of the lattice on the rectangle's edge at x = 8 (the next
        // column's cell) is found too.
        let edge = try store.positionsInside(site: "demo-warehouse", polygon: Self.areas[0].wkt)
        #expect(edge.count == rows.filter { Self.areas[0].contains($0.position.x, $0.position.y) }.count)
    }

    @Test("the writer's cell is the server's sextant_cell: floor of x/4 and y/4, NULL without a place")
    func writerCellMatchesServer() throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        let store = try PostgresHistoryStore(url: database.url)
        let values: [Double] = [0, -0.0, 3.999_999_999_999_999, 4, -4, -4.000_000_000_000_001, 1e-300, -1e-300,
                                123_456.75, -8_589_934_592.5, 1e300, -1e300, .infinity, -.infinity, .nan]
        let writer = store.makeWriter()
        var time: Int64 = 0
        for x in values {
            for y in values {
                var e = makeEstimate(tag: "T", time: time)
                e.position = Vec3(x, y, 0)
                writer.append(e)
                time += CellVisits.bucketNanoseconds   // a bucket each: every row starts a visit
            }
        }
        writer.close()
        let c = try PostgresConnection(url: database.url)
        // Each row with a point starts a visit here (one tag, every row in another cell or time):
        // the visit's cell is the server's sextant_cell of the row's x and y.
        let rows = try c.query("""
            SELECT count(*), count(v.cell), count(*) FILTER (WHERE v.cell IS DISTINCT FROM sextant_cell(p.x, p.y)),
                   count(*) FILTER (WHERE (v.cell IS NULL) <> (p.geom IS NULL))
            FROM positions p LEFT JOIN cell_visits v ON v.tag_id = p.tag_id AND v.t_ns = p.t_ns
            """)
        #expect(rows.int64(0, 0) == Int64(values.count * values.count))
        #expect(rows.int64(0, 1) == Int64((values.count - 1) * (values.count - 1)), "NaN in x or y: no cell")
        #expect(rows.int64(0, 2) == 0, "every cell as the server computes it")
        #expect(rows.int64(0, 3) == 0, "a cell exactly where there is a point")
        // The encoding: column × 2³² + row + 2³¹, the indices clamped to 32 bits.
        // Unwrapped and compared as Int64: `Int64? == 1 << 31` type-checks only as `AnyHashable ==`,
        // and under ASan the toolchain's conversion of the optional to AnyHashable can read 9 bytes of
        // an 8-byte slot (a stack-buffer-overflow report that aborts the suite).
        let origin = try #require(PostgresSchema.cell(x: 0, y: 0))
        let west = try #require(PostgresSchema.cell(x: -0.1, y: 4))
        let far = try #require(PostgresSchema.cell(x: .infinity, y: -.infinity))
        #expect(origin == Int64(1) << 31)
        #expect(west == -(Int64(1) << 32) + 1 + (Int64(1) << 31))
        #expect(far == Int64(Int32.max) << 32)
        #expect(PostgresSchema.cell(x: 1, y: .nan) == nil)
        #expect(try Self.positionIndexes(c) == ["positions_pkey"],
                "no index on every row beyond the primary key")
        // Inlined by the planner (not STRICT): a call per row would cost about 20 µs (the upgrade's fill).
        let plan = try c.query("EXPLAIN VERBOSE SELECT sextant_cell(x, y), sextant_visit_bucket(t_ns) FROM positions")
        #expect(!(0..<plan.count).contains { plan.string($0, 0)?.contains("sextant_") == true }, "the functions inlined")
    }

    @Test("the bucket of a time is its floor division by 10 s, in the writer and in the server, to the ends of bigint")
    func bucketMatchesServer() throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        _ = try PostgresHistoryStore(url: database.url)
        let c = try PostgresConnection(url: database.url)
        let b = CellVisits.bucketNanoseconds
        for t in [0, 1, -1, b - 1, b, -b, -b - 1, .max, .min, .max - 1, .min + 1, 1_767_225_605_000_000_000] as [Int64] {
            let row = try c.query("""
                SELECT sextant_visit_bucket($1), sextant_visit_start(sextant_visit_bucket($1)), sextant_visit_end(sextant_visit_bucket($1))
                """, [String(t)])
            let bucket = row.int64(0, 0), start = row.int64(0, 1), end = row.int64(0, 2)
            #expect(bucket == CellVisits.bucket(t), "\(t)")
            #expect(start <= t && (t < end || t == .max), "\(t) in [\(start), \(end))")
            #expect(Double(end) - Double(start) <= Double(b), "\(t): one bucket")
        }
    }

    @Test("a database with geom and its SP-GiST index gets visits from its rows, and loses the SP-GiST index")
    func upgradeFromSpatialIndex() throws {
        // A database from before the cells.
        let (database, c) = try TestPostgresDatabase.olderLayout("""
            DROP TABLE cell_visits, cell_visits_pruned;
            CREATE INDEX positions_geom ON positions USING spgist (geom);
            """)
        defer { database.drop() }
        let old = try PostgresHistoryStore(url: database.url, spatial: false)
        #expect(old.isSpatial && !old.hasCells)
        let rows = Self.walk(tags: 3, steps: 100)
        let writer = old.makeWriter()
        for e in rows { writer.append(e) }
        writer.close()
        let area = Self.areas[1]
        let before = try old.positionsInside(site: "demo-warehouse", polygon: area.wkt)
        let store = try PostgresHistoryStore(url: database.url)
        #expect(store.hasCells)
        // One visit per tag, cell and bucket, at the time of its first row there.
        let placed = rows.filter { !$0.position.x.isNaN && !$0.position.y.isNaN }
        let firsts = Dictionary(grouping: placed) { e in
            "\(e.tag) \(PostgresSchema.cell(x: e.position.x, y: e.position.y)!) \(CellVisits.bucket(e.time))"
        }.mapValues { $0.map(\.time).min()! }
        let visits = try c.query("SELECT t.tag, v.cell, v.t_ns FROM cell_visits v JOIN tags t ON t.id = v.tag_id")
        let stored = Dictionary(uniqueKeysWithValues: (0..<visits.count).map { i in
            ("\(visits.string(i, 0)!) \(visits.int64(i, 1)) \(CellVisits.bucket(visits.int64(i, 2)))", visits.int64(i, 2))
        })
        #expect(stored == firsts)
        #expect(try Self.positionIndexes(c) == ["positions_pkey"])
        let after = try store.positionsInside(site: "demo-warehouse", polygon: area.wkt)
        let expected = rows.filter { !$0.position.x.isNaN && !$0.position.y.isNaN && area.contains($0.position.x, $0.position.y) }
        #expect(before.count == expected.count && after.count == expected.count)
        #expect(after.map(\.time) == before.map(\.time))
    }
}
