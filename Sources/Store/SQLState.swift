/// A PostgreSQL SQLSTATE error code (five characters, for example `53100` disk full), matched by
/// name like SQLite's `ResultCode`.
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The five-character code.
    public let rawValue: String

    /// - Parameter rawValue: the code as PostgreSQL reports it (`PG_DIAG_SQLSTATE`).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `23505`: a unique constraint failed (for example a repeated (tag, time) in `COPY positions`).
    public static let uniqueViolation = SQLState(rawValue: "23505")
    /// `53100`: the server's disk is full.
    public static let diskFull = SQLState(rawValue: "53100")
    /// `57P01`: the server is shutting down (a restart, `pg_ctl stop -m fast`, `pg_terminate_backend`).
    public static let adminShutdown = SQLState(rawValue: "57P01")
    /// `57P03`: the server is starting up or not accepting connections yet.
    public static let cannotConnectNow = SQLState(rawValue: "57P03")
    /// `55000`: object not in prerequisite state.
    public static let objectNotInPrerequisiteState = SQLState(rawValue: "55000")

    /// The two-character class (`08` connection exception, `53` insufficient resources, ...).
    public var errorClass: Substring { rawValue.prefix(2) }

    /// True for errors whose cause may go away, so that a write is worth retrying: connection
    /// exceptions (class `08`), insufficient resources (`53`: disk full, out of memory, too many
    /// connections), operator intervention (`57`: shutdown, crash, not yet started), serialization
    /// failures and deadlocks (`40`), and system I/O errors (`58`).
    public var isTransient: Bool {
        switch errorClass {
        case "08", "53", "57", "40", "58": true
        default: false
        }
    }

    public var description: String { rawValue }
}
