internal import CSQLite

extension Database {
    /// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT`, rolling back if `body` (or the commit) throws.
    ///
    /// `IMMEDIATE` takes the write lock up front, so a writer waits for the busy timeout at `BEGIN`
    /// instead of failing half-way. Transactions do not nest: calling this inside another throws.
    /// - Parameter body: the work; its result is returned after a successful commit.
    /// - Returns: what `body` returned.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute(sql: "BEGIN IMMEDIATE")
        let value: T
        do {
            value = try body()
            try execute(sql: "COMMIT")
        } catch {
            rollbackQuietly()
            throw error
        }
        return value
    }

    /// Rolls back if a transaction is still open. SQLite may already have rolled back on its own
    /// (after `SQLITE_FULL`, `SQLITE_IOERR`, ...); the caller rethrows the original error either way.
    private func rollbackQuietly() {
        guard isInTransaction else { return }
        sqlite3_exec(connection, "ROLLBACK", nil, nil, nil)
    }
}
