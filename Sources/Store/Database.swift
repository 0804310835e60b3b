internal import CSQLite

/// One SQLite connection: opens the file, sets it up for a single writer (WAL), runs SQL and caches
/// prepared statements.
///
/// Threading invariant: a `Database` is confined to one thread at a time. The connection is opened
/// with `SQLITE_OPEN_NOMUTEX` (SQLite's multi-thread mode), so SQLite does not serialise calls on it
/// and concurrent use is undefined behaviour. In Sextant each `Database` belongs to one serial
/// `DispatchQueue` (never the cooperative pool, since SQLite calls block) and is used only there.
/// It is `@unchecked Sendable` solely so it can be handed to that queue once; after the hand-off no
/// other thread may touch it, nor any `Statement` it returned (statements are not `Sendable`).
public final class Database: @unchecked Sendable {
    /// The path given to `init(path:)`; `":memory:"` for an in-memory database.
    public let path: String
    /// The one owner of the `sqlite3*`; closed in `deinit`.
    let connection: OpaquePointer
    /// Prepared statements keyed by their exact SQL text.
    private var statementCache: [String: Statement] = [:]

    /// Opens (creating if needed) the database at `path` in WAL mode, `synchronous = NORMAL`,
    /// with foreign keys enforced.
    ///
    /// Throws if the file cannot be opened or if WAL cannot be turned on for a file database
    /// (in-memory databases report `memory` and are accepted).
    /// - Parameters:
    ///   - path: a file path, or `":memory:"` for a private in-memory database (tests).
    ///   - busyTimeout: how long a call waits for another connection's lock before failing with
    ///     `SQLITE_BUSY`; whole milliseconds, capped at `Int32.max`.
    public init(path: String, busyTimeout: Duration = .seconds(5)) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            // SQLite usually allocates a handle even on failure; read its message, then free it.
            let error = DatabaseError(connection: handle, result: result, sql: nil)
            sqlite3_close_v2(handle)
            throw DatabaseError(extendedCode: error.extendedCode,
                                message: "cannot open '\(path)': \(error.message)")
        }
        self.path = path
        self.connection = handle
        sqlite3_extended_result_codes(handle, 1)
        let (seconds, attoseconds) = busyTimeout.components
        let clampedSeconds = max(0, min(seconds, Int64(Int32.max) / 1000))
        let milliseconds = clampedSeconds * 1000 + max(0, attoseconds) / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(milliseconds))
        try configure()
    }

    deinit {
        statementCache.removeAll()  // finalize cached statements before the connection goes
        // close_v2: if a caller still holds a Statement, the connection lingers until it is finalized.
        sqlite3_close_v2(connection)
    }

    /// Turns on WAL (checked), `synchronous = NORMAL` and foreign keys.
    private func configure() throws {
        let isInMemory = (sqlite3_db_filename(connection, "main").map { $0.pointee == 0 }) ?? true
        let journalMode = try prepare(sql: "PRAGMA journal_mode = WAL")
        let mode = try journalMode.step() ? journalMode.string(at: 0)?.lowercased() : nil
        guard mode == "wal" || (isInMemory && mode == "memory") else {
            throw DatabaseError(extendedCode: SQLITE_ERROR,
                                message: "journal_mode is '\(mode ?? "?")', expected 'wal' for '\(path)'",
                                sql: "PRAGMA journal_mode = WAL")
        }
        try execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
    }

    /// Runs a script of zero or more `;`-separated statements, discarding any rows they return.
    ///
    /// Statements before a failing one stay applied unless the script is run inside `transaction`.
    /// The thrown error carries the text of the failing statement only.
    /// - Parameter sql: the script.
    public func execute(sql: String) throws {
        var utf8 = Array(sql.utf8CString)  // NUL-terminated, so `tail` can walk it
        try utf8.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            var cursor = UnsafePointer(start)
            while cursor.pointee != 0 {
                var handle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let result = sqlite3_prepare_v3(connection, cursor, -1, 0, &handle, &tail)
                let length = (tail ?? cursor) - cursor
                let text = String(decoding: UnsafeRawBufferPointer(start: cursor, count: length), as: UTF8.self)
                guard result == SQLITE_OK else {
                    let failing = length > 0 ? text : String(cString: cursor)
                    throw DatabaseError(connection: connection, result: result, sql: failing)
                }
                guard let tail, tail != cursor else { return }
                cursor = tail
                guard let handle else { continue }  // only whitespace or a comment
                let statement = Statement(connection: connection, handle: handle, sql: text)
                try statement.execute()
            }
        }
    }

    /// Prepares one statement, uncached; it is finalized when the returned value is released.
    ///
    /// Throws if the SQL is invalid, empty, or holds more than one statement (use `execute(sql:)`).
    /// - Parameter sql: one SQL statement, with `?` or `?NNN` parameters bound by index from 1.
    public func prepare(sql: String) throws -> Statement {
        try Statement(connection: connection, sql: sql, persistent: false)
    }

    /// Returns the cached statement for exactly this SQL text, preparing it (with
    /// `SQLITE_PREPARE_PERSISTENT`) on first use. The statement comes back reset with its bindings
    /// cleared, so a caller must finish with it before asking for the same SQL again.
    /// - Parameter sql: one SQL statement; the cache key is the exact text.
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            statement.clearBindings()
            return statement
        }
        let statement = try Statement(connection: connection, sql: sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// Finalizes every cached statement (for example before `DROP TABLE` in a migration, or to free memory).
    public func clearStatementCache() {
        statementCache.removeAll()
    }

    /// The rowid of the most recent successful `INSERT` on this connection (0 if none).
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(connection) }

    /// Rows changed by the most recent `INSERT`, `UPDATE` or `DELETE` on this connection.
    public var changes: Int { Int(sqlite3_changes64(connection)) }

    /// True while an explicit transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(connection) == 0 }
}
