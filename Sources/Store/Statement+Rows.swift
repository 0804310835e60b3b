internal import CSQLite

extension Statement {
    /// Advances to the next row.
    ///
    /// Returns `true` when a row is ready to read with the column accessors, `false` when the
    /// statement has finished. On error the statement is reset and the error thrown.
    @discardableResult
    public func step() throws -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = DatabaseError(connection: connection, result: result, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion from the start, ignoring any rows, then resets it.
    public func execute() throws {
        reset()
        defer { reset() }
        while try step() {}
    }

    /// Runs the statement from the start, calling `body` once per row, then resets it.
    /// - Parameter body: reads the current row through the column accessors of the statement it is given.
    public func forEachRow(_ body: (Statement) throws -> Void) throws {
        reset()
        defer { reset() }
        while try step() { try body(self) }
    }

    /// Number of columns in each row.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of column `index` (from 0), as given by `AS` or derived by SQLite.
    public func columnName(at index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    /// True if column `index` (from 0) of the current row is `NULL`.
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    /// Column `index` (from 0) as an integer, converted by SQLite's rules (`NULL` reads as 0).
    public func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    /// Column `index` (from 0) as a double, converted by SQLite's rules (`NULL` reads as 0.0).
    public func double(at index: Int) -> Double {
        sqlite3_column_double(handle, Int32(index))
    }

    /// Column `index` (from 0) as UTF-8 text, or nil if `NULL`. Embedded U+0000 is kept.
    public func string(at index: Int) -> String? {
        let column = Int32(index)
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))  // after column_text, as SQLite requires
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Column `index` (from 0) as bytes, or nil if `NULL`.
    public func blob(at index: Int) -> [UInt8]? {
        let column = Int32(index)
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Column `index` (from 0) in its stored type.
    public func value(at index: Int) -> DatabaseValue {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(string(at: index) ?? "")
        case SQLITE_BLOB: .blob(blob(at: index) ?? [])
        default: .null
        }
    }
}
