import Testing
@testable import Store

@Suite("Migrator")
struct MigratorTests {
    static let createSites = Migration(version: 1, name: "create sites",
                                       sql: "CREATE TABLE sites(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    static let createAnchors = Migration(version: 2, name: "create anchors", sql: """
        CREATE TABLE anchors(id INTEGER PRIMARY KEY, site INTEGER NOT NULL REFERENCES sites(id));
        CREATE INDEX anchors_site ON anchors(site);
        """)

    @Test("migrations apply once, in version order, and are recorded")
    func appliesInOrder() throws {
        let database = try Database(path: ":memory:")
        // Registered out of order on purpose: order comes from the version.
        let migrator = Migrator([Self.createAnchors, Self.createSites])
        #expect(try migrator.migrate(database) == [1, 2])
        #expect(try migrator.migrate(database) == [])
        #expect(try Migrator.recordedMigrations(in: database) == [1: "create sites", 2: "create anchors"])
        #expect(try database.scalar("SELECT count(*) FROM schema_migrations WHERE applied_at LIKE '20%Z'") == .integer(2))
    }

    @Test("reopening a file database applies only the new migrations")
    func reopen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.path("migrate.sqlite")
            do {
                let database = try Database(path: path)
                #expect(try Migrator([Self.createSites]).migrate(database) == [1])
                try database.execute(sql: "INSERT INTO sites(name) VALUES ('lab')")
            }
            let database = try Database(path: path)
            #expect(try Migrator([Self.createSites, Self.createAnchors]).migrate(database) == [2])
            #expect(try Migrator([Self.createSites, Self.createAnchors]).migrate(database) == [])
            #expect(try database.scalar("SELECT name FROM sites") == .text("lab"))
        }
    }

    @Test("a database migrated by newer code is refused, untouched")
    func refusesNewerDatabase() throws {
        try withTemporaryDirectory { directory in
            let path = directory.path("newer.sqlite")
            try Migrator([Self.createSites, Self.createAnchors]).migrate(try Database(path: path))
            let database = try Database(path: path)
            let error = #expect(throws: MigrationError.self) { try Migrator([Self.createSites]).migrate(database) }
            #expect(error == .databaseTooNew(databaseVersion: 2, knownVersion: 1))
            #expect(error?.description.contains("version 2") == true)
            #expect(try Migrator.recordedMigrations(in: database).count == 2)
        }
    }

    @Test("a failing migration rolls back and leaves earlier ones applied")
    func failingMigration() throws {
        let database = try Database(path: ":memory:")
        let broken = Migration(version: 2, name: "broken", sql: "CREATE TABLE half(x); INSERT INTO nowhere VALUES (1);")
        #expect(throws: DatabaseError.self) { try Migrator([Self.createSites, broken]).migrate(database) }
        #expect(try Migrator.recordedMigrations(in: database) == [1: "create sites"])
        #expect(try database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'half'") == .integer(0))
        #expect(try Migrator([Self.createSites, Self.createAnchors]).migrate(database) == [2])
    }

    @Test("history that disagrees with the code is refused")
    func disagreeingHistory() throws {
        let database = try Database(path: ":memory:")
        try Migrator([Self.createSites, Self.createAnchors]).migrate(database)
        let renamed = Migration(version: 1, name: "make sites", sql: "SELECT 1")
        #expect(throws: MigrationError.nameMismatch(version: 1, recorded: "create sites", expected: "make sites")) {
            try Migrator([renamed, Self.createAnchors]).migrate(database)
        }
        let three = Migration(version: 3, name: "three", sql: "SELECT 1")
        #expect(throws: MigrationError.unknownVersion(version: 2, name: "create anchors")) {
            try Migrator([Self.createSites, three]).migrate(database)
        }
    }

    @Test("duplicate and non-positive versions are rejected before anything runs")
    func invalidRegistrations() throws {
        let database = try Database(path: ":memory:")
        let again = Migration(version: 1, name: "again", sql: "SELECT 1")
        #expect(throws: MigrationError.duplicateVersion(1)) { try Migrator([Self.createSites, again]).migrate(database) }
        var migrator = Migrator()
        migrator.register(Migration(version: 0, name: "zero", sql: "SELECT 1"))
        #expect(throws: MigrationError.invalidVersion(0)) { try migrator.migrate(database) }
        #expect(try Migrator.recordedMigrations(in: database).isEmpty)
    }
}
