/// One numbered, named schema change, applied once per database and recorded in `schema_migrations`.
public struct Migration: Sendable {
    /// Position in the schema history; positive, unique within a `Migrator`.
    public let version: Int
    /// A short human name (`"create sites"`), recorded beside the version and checked on reopen.
    public let name: String
    /// The change itself; runs inside the transaction that also records it.
    public let apply: @Sendable (Database) throws -> Void

    /// A migration that runs arbitrary code.
    /// - Parameters:
    ///   - version: positive, unique number; migrations apply in increasing order.
    ///   - name: short description, recorded with the version.
    ///   - apply: the change, given the database inside the migration's transaction.
    public init(version: Int, name: String, apply: @escaping @Sendable (Database) throws -> Void) {
        self.version = version
        self.name = name
        self.apply = apply
    }

    /// A migration that runs an SQL script.
    /// - Parameters:
    ///   - version: positive, unique number; migrations apply in increasing order.
    ///   - name: short description, recorded with the version.
    ///   - sql: one or more `;`-separated statements.
    public init(version: Int, name: String, sql: String) {
        self.init(version: version, name: name) { try $0.execute(sql: sql) }
    }
}

/// Why the `Migrator` refused to run; each case names what to fix.
public enum MigrationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The database has been migrated by newer code than this build knows about.
    case databaseTooNew(databaseVersion: Int, knownVersion: Int)
    /// The database records a version this code has no migration for (below the newest known one).
    case unknownVersion(version: Int, name: String)
    /// The database records `version` under a different name than the code does.
    case nameMismatch(version: Int, recorded: String, expected: String)
    /// Two registered migrations share a version.
    case duplicateVersion(Int)
    /// A registered migration has a version below 1.
    case invalidVersion(Int)

    /// A message a user can act on.
    public var description: String {
        switch self {
        case let .databaseTooNew(databaseVersion, knownVersion):
            "database schema is version \(databaseVersion), but this build knows only up to \(knownVersion); "
                + "upgrade sextant or use a matching database"
        case let .unknownVersion(version, name):
            "database records migration \(version) '\(name)', which this build does not have"
        case let .nameMismatch(version, recorded, expected):
            "migration \(version) is recorded as '\(recorded)' but this build calls it '\(expected)'"
        case let .duplicateVersion(version):
            "two migrations are registered with version \(version)"
        case let .invalidVersion(version):
            "migration version \(version) is invalid; versions start at 1"
        }
    }
}
