import Foundation
import Numerics
import Positioning
import Testing
@testable import Store

@Suite("PostgreSQL history store")
struct PostgresStoreTests {
    @Test("the PostgreSQL migrations have SQLite's versions and names, and apply once")
    func migrationsMatchSQLite() throws {
        #expect(PostgresSchema.migrations.map(\.version) == StoreSchema.migrations.map(\.version))
        #expect(PostgresSchema.migrations.map(\.name) == StoreSchema.migrations.map(\.name))
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        _ = try PostgresHistoryStore(url: database.url)
        let connection = try PostgresConnection(url: database.url)
        #expect(try PostgresSchema.migrate(connection) == [])
        let recorded = try connection.query("SELECT name FROM schema_migrations ORDER BY version")
        #expect((0..<recorded.count).map { recorded.string($0, 0) } == StoreSchema.migrations.map(\.name))
        let views = try connection.query("SELECT time FROM (SELECT 1) one CROSS JOIN LATERAL (SELECT "
            + "to_char(to_timestamp(div(1764686705123456789, 1000000000)) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS')"
            + " || '.' || lpad(mod(1764686705123456789, 1000000000)::text, 9, '0') || 'Z' AS time) v")
        #expect(views.string(0, 0) == "2025-12-02T14:45:05.123456789Z")
    }

    @Test("a database with a newer migration is refused")
    func newerSchemaRefused() throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        _ = try PostgresHistoryStore(url: database.url)
        try PostgresConnection(url: database.url).execute(
            "INSERT INTO schema_migrations VALUES (99, 'from the future', '2100-01-01T00:00:00Z')")
        #expect(throws: MigrationError.databaseTooNew(databaseVersion: 99, knownVersion: 7)) {
            _ = try PostgresHistoryStore(url: database.url)
        }
    }

    @Test("the server going away mid-ingest loses nothing accepted: rows are kept, counted, and written on return")
    func serverAwayMidIngest() throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        let store = try PostgresHistoryStore(url: database.url)
        let writer = store.makeWriter(batchSize: 50, maxDelay: .milliseconds(5))
        for step in 0..<200 { writer.append(makeEstimate(tag: "T\(step % 4)", time: Int64(step))) }
        #expect(writer.flush() == 200)
        // What a restart looks like to the writer: its session ends (57P01) and new ones are refused.
        let admin = try PostgresConnection(url: TestPostgresDatabase.url(database.url, database: "postgres"))
        let name = String(database.url.split(separator: "/").last ?? "")
        try admin.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
        try admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name])
        for step in 200..<500 { writer.append(makeEstimate(tag: "T\(step % 4)", time: Int64(step))) }
        writer.flush()  // one attempt, which fails
        let down = writer.stats
        #expect(down.lastError != nil && down.failedBatches >= 1, "\(down)")
        #expect(down.pending == 300 && down.droppedRows == 0, "\(down)")
        #expect(down.rowsWritten == 200)
        try admin.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS true")
        // The kept batch is retried every retryDelay, without being asked.
        #expect(writer.waitUntilWritten(500, timeout: .seconds(20)) == 500)
        let up = writer.stats
        #expect(up.lastError == nil && up.pending == 0 && up.droppedRows == 0, "\(up)")
        writer.close()
        #expect(try store.positionCount(site: nil, tag: nil, from: nil, to: nil) == 500)
        #expect(try store.lastPositions(site: nil).map(\.time) == [496, 497, 498, 499])
    }

    @Test("a repeated (tag, time) in a later batch replaces the stored row, as in SQLite")
    func repeatReplaces() throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        let store = try PostgresHistoryStore(url: database.url)
        let writer = store.makeWriter(batchSize: 10, maxDelay: .milliseconds(5))
        for step in 0..<10 { writer.append(makeEstimate(tag: "T", time: Int64(step))) }
        writer.flush()
        var again = makeEstimate(tag: "T", time: 5)
        again.anchors = 9
        writer.append(again)
        writer.append(makeEstimate(tag: "T", time: 10))
        #expect(writer.flush() == 12)
        writer.close()
        let rows = try store.positions(site: "demo-warehouse", tag: "T", from: nil, to: nil, limit: nil)
        #expect(rows.map(\.time) == Array(0...10))
        #expect(rows[5].anchors == 9)
        #expect(writer.stats.droppedRows == 0)
    }

    @Test("the writer sends each point as WKB: geom is exact, NULL without a place, and a generated geom becomes plain")
    func geometryFromTheWriter() throws {
        // A database from before: geom computed by the server.
        let (database, c) = try TestPostgresDatabase.olderLayout("""
            ALTER TABLE positions DROP COLUMN geom;
            ALTER TABLE positions ADD COLUMN geom geometry(Point) GENERATED ALWAYS AS (
                CASE WHEN x = 'NaN' OR y = 'NaN' THEN NULL ELSE ST_MakePoint(x, y) END) STORED;
            """)
        defer { database.drop() }
        let store = try PostgresHistoryStore(url: database.url)
        #expect(store.isSpatial)
        let generated = try c.query("SELECT is_generated FROM information_schema.columns WHERE table_name = 'positions' AND column_name = 'geom'")
        #expect(generated.string(0, 0) == "NEVER")
        let writer = store.makeWriter()
        var a = makeEstimate(tag: "A", time: 1)
        a.position = Vec3(12.345678901234567, -0.1, 2)
        var b = makeEstimate(tag: "B", time: 1)
        b.position = Vec3(.nan, 3, 0)
        writer.append(a)
        writer.append(b)
        writer.close()
        let rows = try c.query("""
            SELECT t.tag, (ST_X(p.geom) = p.x AND ST_Y(p.geom) = p.y)::text, (p.geom IS NULL)::text, ST_SRID(p.geom)::text
            FROM positions p JOIN tags t ON t.id = p.tag_id ORDER BY t.tag
            """)
        #expect(rows.count == 2)
        #expect(rows.string(0, 0) == "A" && rows.string(0, 1) == "true" && rows.string(0, 2) == "false" && rows.string(0, 3) == "0",
                "x and y exact, SRID 0")
        #expect(rows.string(1, 0) == "B" && rows.string(1, 2) == "true", "x is NaN: no point")
    }

    @Test("with PostGIS, who was inside a polygon between t1 and t2 is one query")
    func polygonQuery() throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        let store = try PostgresHistoryStore(url: database.url)
        #expect(store.isSpatial, "PostGIS is in scripts/deps.d/postgres, so the test server has it")
        let writer = store.makeWriter()
        // A walks x = 0 … 19 m along y = 1 (one metre per second); B stands at (30, 30).
        for s in 0..<20 {
            var a = makeEstimate(tag: "A", time: Int64(s) * 1_000_000_000)
            a.position = Vec3(Double(s), 1, 0)
            var b = makeEstimate(tag: "B", time: Int64(s) * 1_000_000_000)
            b.position = Vec3(30, 30, 0)
            writer.append(a)
            writer.append(b)
        }
        writer.close()
        let inside = try store.positionsInside(site: "demo-warehouse", polygon: "POLYGON((4 0, 8 0, 8 2, 4 2, 4 0))",
                                               from: 5_000_000_000, to: 20_000_000_000)
        #expect(inside.map(\.tag) == ["A", "A", "A", "A"])
        #expect(inside.map(\.time) == [5, 6, 7, 8].map { Int64($0) * 1_000_000_000 })
        // With 40 rows a sequential scan is cheaper; forbid it to see that the index can answer the
        // lookup `sextant_inside` makes: the visits of cells, each over a time window.
        let explain = try PostgresConnection(url: database.url)
        try explain.execute("SET enable_seqscan = off")
        let cells = [PostgresSchema.cell(x: 4, y: 0)!, PostgresSchema.cell(x: 8, y: 0)!]
        let plan = try explain.query("""
            EXPLAIN SELECT * FROM cell_visits WHERE cell = ANY ('{\(cells.map(String.init).joined(separator: ","))}'::bigint[])
                AND t_ns >= 5000000000 AND t_ns < 20000000000
            """)
        #expect((0..<plan.count).contains { plan.string($0, 0)?.contains("cell_visits_cell") == true })
    }
}
