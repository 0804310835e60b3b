import Foundation
import Positioning
import Testing
@testable import Store

/// Migration 6: what a direct SQLite user reads (`positions_named`, `last_positions_named`), and the
/// plan of a time range across tags through them: one primary-key range per tag, no scan.
@Suite("StoreSchema views")
struct StoreSchemaViewTests {
    /// Writes `estimates` through a history writer, as the service does, and waits for the commit.
    static func write(_ estimates: [PositionEstimate], into store: HistoryStore) {
        let writer = store.makeWriter()
        writer.append(contentsOf: estimates)
        _ = writer.flush()
        writer.close()
    }

    /// The `EXPLAIN QUERY PLAN` details of `sql`, joined by "; ".
    static func plan(_ sql: String, in database: Database) throws -> String {
        var details: [String] = []
        try database.prepare(sql: "EXPLAIN QUERY PLAN " + sql).forEachRow { details.append($0.string(at: 3) ?? "") }
        return details.joined(separator: "; ")
    }

    static let acrossTags = "SELECT site, tag, time, x FROM positions_named WHERE t_ns >= 1000 AND t_ns < 2000"

    @Test("the named views give site, tag and an exact ISO 8601 UTC time beside t_ns")
    func namedViewsGiveIsoTimes() throws {
        try withTemporaryDirectory { directory in
            let store = try HistoryStore(directory: directory.path("data"))
            // Nanoseconds that a double would round (…036), one past the epoch, one before 2038's limit.
            Self.write([makeEstimate(tag: "T1", time: 1_700_000_010_096_756_036),
                        makeEstimate(tag: "T1", time: 1_700_000_011_000_000_000),
                        makeEstimate(site: "demo-3d", tag: "A", time: 5, threeD: true),
                        makeEstimate(tag: "T2", time: 2_147_483_647_999_999_999)], into: store)
            try store.withDatabase { database in
                var rows: [String] = []
                try database.prepare(sql: "SELECT site, tag, t_ns, time FROM positions_named ORDER BY t_ns")
                    .forEachRow { rows.append("\($0.string(at: 0)!) \($0.string(at: 1)!) \($0.int64(at: 2)) \($0.string(at: 3)!)") }
                #expect(rows == [
                    "demo-3d A 5 1970-01-01T00:00:00.000000005Z",
                    "demo-warehouse T1 1700000010096756036 2023-11-14T22:13:30.096756036Z",
                    "demo-warehouse T1 1700000011000000000 2023-11-14T22:13:31.000000000Z",
                    "demo-warehouse T2 2147483647999999999 2038-01-19T03:14:07.999999999Z",
                ])
                // SQLite's own date functions read the text back. They keep milliseconds (rounded), and
                // julianday's double is good to about 40 µs here: hence a tolerance of 1 ms.
                #expect(try database.scalar("""
                    SELECT count(*) FROM positions_named
                    WHERE abs((julianday(time) - 2440587.5) * 86400000.0 - t_ns / 1000000.0) < 1.0
                    """) == .integer(4))
                // The value columns are the table's, unchanged.
                #expect(try database.scalar("""
                    SELECT count(*) FROM positions_named v JOIN tags t ON t.site = v.site AND t.tag = v.tag
                    JOIN positions p ON p.tag_id = t.id AND p.t_ns = v.t_ns
                    WHERE v.x IS p.x AND v.czz IS p.czz AND v.anchors = p.anchors AND v.motion = p.motion
                    """) == .integer(4))
                // One row per tag, its newest.
                var last: [String] = []
                try database.prepare(sql: "SELECT tag, time FROM last_positions_named ORDER BY site, tag")
                    .forEachRow { last.append("\($0.string(at: 0)!) \($0.string(at: 1)!)") }
                #expect(last == ["A 1970-01-01T00:00:00.000000005Z", "T1 2023-11-14T22:13:31.000000000Z",
                                 "T2 2038-01-19T03:14:07.999999999Z"])
            }
        }
    }

    @Test("a time range across tags scans positions without the views, and reads one key range per tag with them")
    func timeRangeAcrossTagsSearchesEachTag() throws {
        try withTemporaryDirectory { directory in
            let dataDirectory = directory.path("data")
            do {  // a database as the first five migrations left it, with history in it
                try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
                let database = try Database(path: dataDirectory + "/" + StoreSchema.fileName)
                try Migrator(StoreSchema.migrations.filter { $0.version <= 5 }).migrate(database)
                #expect(try Self.plan("SELECT * FROM positions WHERE t_ns >= 1000 AND t_ns < 2000", in: database)
                    .contains("SCAN positions"))
            }
            let store = try HistoryStore(directory: dataDirectory)  // applies migration 6
            Self.write((0..<30).map { makeEstimate(tag: "T\($0 % 3)", time: Int64(100 * $0)) }, into: store)
            try store.withDatabase { database in
                #expect(try Migrator.recordedMigrations(in: database)[6] != nil)
                let plan = try Self.plan(Self.acrossTags, in: database)
                #expect(plan.contains("SCAN t"), "\(plan)")
                #expect(plan.contains("SEARCH p USING PRIMARY KEY (tag_id=? AND t_ns>? AND t_ns<?)"), "\(plan)")
                #expect(!plan.contains("SCAN p"), "\(plan)")
                // The range holds t_ns 1000…1900: rows 10…19, of all three tags.
                var tags = Set<String>()
                var count = 0
                try database.prepare(sql: Self.acrossTags).forEachRow { tags.insert($0.string(at: 1)!); count += 1 }
                #expect(count == 10)
                #expect(tags == ["T0", "T1", "T2"])
            }
        }
    }
}
