/// An error reported by PostgreSQL or libpq, with the SQLSTATE (nil when no server answered), the
/// server's or libpq's message and the SQL involved.
public struct PostgresError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The SQLSTATE, or nil for a failure before any server answer (cannot connect, connection lost).
    public let sqlState: SQLState?
    /// PostgreSQL's primary message, or libpq's.
    public let message: String
    /// The statement being run, if any.
    public let sql: String?
    /// True when the connection itself failed (closed, refused, lost mid-statement).
    public let isConnectionFailure: Bool

    /// - Parameters: the parts, as the fields above.
    public init(sqlState: SQLState?, message: String, sql: String? = nil, isConnectionFailure: Bool = false) {
        self.sqlState = sqlState; self.message = message; self.sql = sql; self.isConnectionFailure = isConnectionFailure
    }

    /// True when the cause may go away (a lost or refused connection, a server restarting or out of
    /// disk): a write that failed with it is kept and retried.
    public var isTransient: Bool { isConnectionFailure || (sqlState?.isTransient ?? false) }

    /// For example `PostgreSQL error 53100: could not extend file ...: No space left on device — in: COPY ...`.
    public var description: String {
        var text = sqlState.map { "PostgreSQL error \($0): \(message)" } ?? "PostgreSQL connection: \(message)"
        if let sql { text += " — in: \(sql.count > 200 ? String(sql.prefix(200)) + "…" : sql)" }
        return text
    }
}
