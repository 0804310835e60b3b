/// Applies `Migration`s in version order, each in its own transaction, and records them in
/// `schema_migrations(version, name, applied_at)` so a reopened database applies only what is new.
///
/// Refuses (with `MigrationError`) a database migrated by newer code, or one whose history
/// disagrees with the registered migrations.
public struct Migrator: Sendable {
    /// The registered migrations, in registration order.
    public private(set) var migrations: [Migration]

    /// A migrator for the given migrations.
    /// - Parameter migrations: any order; they are applied by increasing `version`.
    public init(_ migrations: [Migration] = []) {
        self.migrations = migrations
    }

    /// Adds a migration.
    /// - Parameter migration: its version must be unique (checked by `migrate`).
    public mutating func register(_ migration: Migration) {
        migrations.append(migration)
    }

    /// The highest registered version, 0 when none.
    public var knownVersion: Int { migrations.map(\.version).max() ?? 0 }

    /// Applies every registered migration the database has not recorded yet.
    ///
    /// Each migration and its record commit together, so a failure leaves the database at the last
    /// fully applied version. Safe to call on every open.
    /// - Parameter database: the database to bring up to date; must not be inside a transaction.
    /// - Returns: the versions applied by this call, in order (empty when already up to date).
    @discardableResult
    public func migrate(_ database: Database) throws -> [Int] {
        let ordered = try validated()
        try database.execute(sql: """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)
            """)
        try check(recorded: try Self.recordedMigrations(in: database), against: ordered)
        var applied: [Int] = []
        for migration in ordered {
            let didApply = try database.transaction {
                // Re-read inside the write lock: another connection may have applied it meanwhile.
                guard try Self.recordedMigrations(in: database)[migration.version] == nil else { return false }
                try migration.apply(database)
                let record = try database.prepare(sql: """
                    INSERT INTO schema_migrations (version, name, applied_at)
                    VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                    """)
                try record.bind([.integer(Int64(migration.version)), .text(migration.name)])
                try record.execute()
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        database.clearStatementCache()  // the schema changed under any cached statements
        return applied
    }

    /// The recorded migrations, version to name; empty if `schema_migrations` does not exist.
    /// - Parameter database: the database to read.
    public static func recordedMigrations(in database: Database) throws -> [Int: String] {
        let exists = try database.prepare(sql:
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        guard try exists.step() else { return [:] }
        var recorded: [Int: String] = [:]
        try database.prepare(sql: "SELECT version, name FROM schema_migrations").forEachRow { row in
            recorded[Int(row.int64(at: 0))] = row.string(at: 1) ?? ""
        }
        return recorded
    }

    /// Migrations sorted by version, after checking versions are positive and unique.
    private func validated() throws -> [Migration] {
        let ordered = migrations.sorted { $0.version < $1.version }
        for (index, migration) in ordered.enumerated() {
            guard migration.version >= 1 else { throw MigrationError.invalidVersion(migration.version) }
            if index > 0, ordered[index - 1].version == migration.version {
                throw MigrationError.duplicateVersion(migration.version)
            }
        }
        return ordered
    }

    /// Checks the database's history is a subset of the code's, with the same names.
    private func check(recorded: [Int: String], against ordered: [Migration]) throws {
        try Self.check(recorded: recorded, known: ordered.map { ($0.version, $0.name) })
    }

    /// Refuses recorded migrations newer than, absent from, or named differently from `known`
    /// (shared with `PostgresSchema.migrate`).
    static func check(recorded: [Int: String], known list: [(version: Int, name: String)]) throws {
        let known = Dictionary(uniqueKeysWithValues: list.map { ($0.version, $0.name) })
        let knownVersion = list.map(\.version).max() ?? 0
        if let newest = recorded.keys.max(), newest > knownVersion {
            throw MigrationError.databaseTooNew(databaseVersion: newest, knownVersion: knownVersion)
        }
        for (version, name) in recorded.sorted(by: { $0.key < $1.key }) {
            guard let expected = known[version] else { throw MigrationError.unknownVersion(version: version, name: name) }
            guard expected == name else {
                throw MigrationError.nameMismatch(version: version, recorded: name, expected: expected)
            }
        }
    }
}
