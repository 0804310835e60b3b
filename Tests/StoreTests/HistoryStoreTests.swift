import Foundation
import Numerics
import Positioning
import Testing
@testable import Store

@Suite("HistoryStore")
struct HistoryStoreTests {
    @Test("the migrations build the schema on a fresh database and apply nothing on reopen")
    func migrationsAreIdempotent() throws {
        try withTemporaryDirectory { directory in
            let dataDirectory = directory.path("data/nested")  // created by the store
            _ = try HistoryStore(directory: dataDirectory)
            let database = try Database(path: dataDirectory + "/sextant.sqlite")
            #expect(try Migrator.recordedMigrations(in: database).keys.sorted() == [1, 2, 3, 4, 5, 6, 7])
            for table in ["sites", "tags", "positions", "last_positions", "measurements", "zone_events"] {
                #expect(try database.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '\(table)'")
                    == .integer(1), "table \(table)")
            }
            #expect(try database.scalar("PRAGMA journal_mode") == .text("wal"))
            #expect(try StoreSchema.migrator.migrate(database) == [])
            _ = try HistoryStore(directory: dataDirectory)  // reopening applies nothing and does not throw
            #expect(try Migrator.recordedMigrations(in: database).count == 7)
        }
    }

    @Test("positions is a WITHOUT ROWID table keyed by (tag_id, t_ns), so a tag's range needs no index")
    func positionsAreClustered() throws {
        try withTemporaryDirectory { directory in
            let store = try HistoryStore(directory: directory.path("data"))
            let plan = try store.withDatabase { database in
                var details: [String] = []
                try database.prepare(sql: """
                    EXPLAIN QUERY PLAN SELECT * FROM positions WHERE tag_id = 3 AND t_ns >= 0 AND t_ns < 10
                    """).forEachRow { details.append($0.string(at: 3) ?? "") }
                return details.joined(separator: "; ")
            }
            #expect(plan.contains("SEARCH positions USING PRIMARY KEY (tag_id=? AND t_ns>? AND t_ns<?)"), "\(plan)")
        }
    }

    @Test("sites round-trip, and saving again updates the site in place", arguments: StoreKind.allCases)
    func sitesRoundTrip(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            #expect(try store.loadSites().isEmpty)
            let warehouse = Site.demoWarehouse
            let json = Array(Site.demoWarehouseJSON.utf8)
            try store.saveSite(warehouse, json: json)
            let atrium = try Site(json: Array(try Data(contentsOf: sitesDirectory.appendingPathComponent("demo-3d.json"))),
                                  source: "demo-3d.json")
            try store.saveSite(atrium)
            #expect(try store.loadSites() == [atrium, warehouse].sorted { $0.id < $1.id })
            #expect(try store.siteJSON(id: warehouse.id) == json)
            #expect(try store.siteJSON(id: "nowhere") == nil)

            var renamed = warehouse
            renamed.name = "Renamed warehouse"
            try store.saveSite(renamed)
            let loaded = try store.loadSites()
            #expect(loaded.count == 2)
            #expect(loaded.first { $0.id == warehouse.id }?.name == "Renamed warehouse")

            #expect(try store.removeSite(id: atrium.id))
            #expect(try !store.removeSite(id: atrium.id))
            #expect(try store.loadSites().map(\.id) == [warehouse.id])
        }
    }

    @Test("re-saving a site keeps its history and last positions", arguments: StoreKind.allCases)
    func resavingKeepsHistory(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let site = Site.demoWarehouse
            try store.saveSite(site)
            let writer = store.makeWriter()
            writer.append(makeEstimate(site: site.id, tag: "T1", time: 5))
            writer.close()
            try store.saveSite(site)
            #expect(try store.positionCount(site: site.id) == 1)
            #expect(try store.lastPositions(site: site.id).map(\.time) == [5])
        }
    }

    @Test("a stored site that no longer parses is reported with its id", arguments: StoreKind.allCases)
    func corruptSite(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            try store.saveSite(Site.demoWarehouse, json: Array(#"{"id": "demo-warehouse"}"#.utf8))
            let error = #expect(throws: SiteError.self) { _ = try store.loadSites() }
            #expect("\(error.map { "\($0)" } ?? "")".contains("database site 'demo-warehouse'"))
        }
    }

    @Test("a database from a newer schema is refused")
    func newerSchemaRefused() throws {
        try withTemporaryDirectory { directory in
            let dataDirectory = directory.path("data")
            _ = try HistoryStore(directory: dataDirectory)
            let database = try Database(path: dataDirectory + "/sextant.sqlite")
            try database.execute(sql: "INSERT INTO schema_migrations VALUES (99, 'future', 'x')")
            #expect(throws: MigrationError.databaseTooNew(databaseVersion: 99, knownVersion: 7)) {
                _ = try HistoryStore(directory: dataDirectory)
            }
        }
    }
}

/// `Sites/` at the package root, found from this file's path.
let sitesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sites")

/// A position whose every field is derived from `time` and `tag`, so rows differ in every column.
/// - Parameters: `site`, `tag`; `time` in nanoseconds; `threeD` fills the z covariance terms.
func makeEstimate(site: String = "demo-warehouse", tag: String, time: Int64, threeD: Bool = false) -> PositionEstimate {
    let t = Double(time) * 1e-9
    let salt = Double(tag.utf8.reduce(0) { $0 &* 31 &+ Int($1) } % 97)
    return PositionEstimate(
        site: site, tag: tag,
        position: Vec3(1.5 + t + salt, 2.25 - t * 0.5, threeD ? 3.125 + t : 1.2),
        velocity: Vec3(0.1 * salt, -0.3, threeD ? 0.01 : 0),
        covXX: 0.01 + t * 1e-3, covXY: -0.002, covYY: 0.015 + salt * 1e-4,
        covXZ: threeD ? 0.001 : 0, covYZ: threeD ? -0.0005 : 0, covZZ: threeD ? 0.02 : 0,
        anchors: Int(time % 9), motion: MotionState.allCases[Int(time % 3)], time: time)
}
