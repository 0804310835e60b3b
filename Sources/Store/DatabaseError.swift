internal import CSQLite

/// An error reported by SQLite, with the result codes, SQLite's message and the SQL that caused it.
///
/// Modelled on GRDB's `DatabaseError`: enough context to act on without a debugger.
public struct DatabaseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The primary result code (`SQLITE_ERROR` = 1, `SQLITE_BUSY` = 5, `SQLITE_CONSTRAINT` = 19, ...).
    public let code: Int32
    /// The extended result code (for example `SQLITE_CONSTRAINT_UNIQUE` = 2067); equals `code` when
    /// SQLite gave no extended detail.
    public let extendedCode: Int32
    /// SQLite's message (`sqlite3_errmsg`) or, for checks made by this module, a description of the problem.
    public let message: String
    /// The SQL being prepared or run when the error happened, if any.
    public let sql: String?

    /// Creates an error from its parts; the primary code is derived from `extendedCode`.
    /// - Parameters:
    ///   - extendedCode: an SQLite (extended) result code.
    ///   - message: what went wrong.
    ///   - sql: the statement involved, if any.
    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.code = extendedCode & 0xFF
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// Reads the current error of `connection` (message and extended code) after a call returned `result`.
    init(connection: OpaquePointer?, result: Int32, sql: String?) {
        var extended = result
        var message = String(cString: sqlite3_errstr(result))
        if let connection {
            let last = sqlite3_extended_errcode(connection)
            // Use the connection's extended code only when it refines the same primary code.
            if last & 0xFF == result & 0xFF { extended = last }
            message = String(cString: sqlite3_errmsg(connection))
        }
        self.init(extendedCode: extended, message: message, sql: sql)
    }

    /// The primary code as a `ResultCode`, to match by name.
    public var resultCode: ResultCode { ResultCode(rawValue: code) }

    /// True for `SQLITE_CONSTRAINT` errors (unique, foreign key, not null, check, ...).
    public var isConstraintViolation: Bool { resultCode == .constraint }

    /// True for `SQLITE_BUSY` and `SQLITE_LOCKED`: another connection held a lock past the busy timeout.
    public var isBusy: Bool { resultCode == .busy || resultCode == .locked }

    /// True when the cause may go away and a write is worth retrying (`ResultCode.isTransient`).
    public var isTransient: Bool { resultCode.isTransient }

    /// For example `SQLite error 1 (SQL logic error): no such table: tags — in: SELECT * FROM tags`.
    public var description: String {
        var text = "SQLite error \(extendedCode) (\(resultCode)): \(message)"
        if let sql { text += " — in: \(sql)" }
        return text
    }
}
