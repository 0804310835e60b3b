internal import CSQLite

/// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the bind call returns.
private var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

/// One prepared SQL statement: bind parameters by index, step through rows, read columns.
///
/// Parameters are numbered from 1 and columns from 0, as in SQLite. The statement is the one owner
/// of its `sqlite3_stmt*` and finalizes it in `deinit`. It belongs to the `Database` that prepared
/// it and shares that database's thread confinement; it should not outlive it (if it does, the
/// connection stays allocated until the statement is released, so this is never a dangling pointer).
public final class Statement {
    /// The SQL text the statement was prepared from.
    public let sql: String
    let connection: OpaquePointer
    let handle: OpaquePointer

    /// Prepares exactly one statement; `persistent` adds `SQLITE_PREPARE_PERSISTENT` (for the cache).
    convenience init(connection: OpaquePointer, sql: String, persistent: Bool) throws {
        var handle: OpaquePointer?
        var tailOffset = 0
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let result = sql.withCString { start in
            var tail: UnsafePointer<CChar>?
            let result = sqlite3_prepare_v3(connection, start, -1, flags, &handle, &tail)
            if let tail { tailOffset = tail - start }
            return result
        }
        guard result == SQLITE_OK else {
            throw DatabaseError(connection: connection, result: result, sql: sql)
        }
        guard let handle else {
            throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "no SQL statement to prepare", sql: sql)
        }
        let rest = sql.utf8.dropFirst(tailOffset)
        guard rest.allSatisfy({ $0 == UInt8(ascii: ";") || $0 == 0x20 || (0x09...0x0D).contains($0) }) else {
            sqlite3_finalize(handle)
            throw DatabaseError(extendedCode: SQLITE_MISUSE,
                                message: "prepare takes one statement; use execute(sql:) for scripts", sql: sql)
        }
        self.init(connection: connection, handle: handle, sql: sql)
    }

    /// Adopts an already prepared handle, which this statement will finalize.
    init(connection: OpaquePointer, handle: OpaquePointer, sql: String) {
        self.connection = connection
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Number of `?` parameters in the statement (the largest index for `?NNN`).
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Binds a 64-bit integer. - Parameters: `value`; `index`, from 1.
    public func bind(_ value: Int64, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, try parameter(index), value))
    }

    /// Binds a double. SQLite stores NaN as `NULL`. - Parameters: `value`; `index`, from 1.
    public func bind(_ value: Double, at index: Int) throws {
        try check(sqlite3_bind_double(handle, try parameter(index), value))
    }

    /// Binds UTF-8 text (copied; embedded U+0000 is kept). - Parameters: `value`; `index`, from 1.
    public func bind(_ value: String, at index: Int) throws {
        let position = try parameter(index)
        var value = value
        let result = value.withUTF8 { bytes in
            // A NULL pointer would bind SQL NULL, so the empty string gets a real (empty) C string.
            guard let base = bytes.baseAddress else { return sqlite3_bind_text(handle, position, "", 0, transient) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text64(handle, position, $0, UInt64(bytes.count), transient, UInt8(SQLITE_UTF8))
            }
        }
        try check(result)
    }

    /// Binds a blob (copied); an empty array binds a zero-length blob, not `NULL`.
    /// - Parameters: `value`; `index`, from 1.
    public func bind(_ value: [UInt8], at index: Int) throws {
        let position = try parameter(index)
        let result = value.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return sqlite3_bind_zeroblob(handle, position, 0) }
            return sqlite3_bind_blob64(handle, position, base, UInt64(bytes.count), transient)
        }
        try check(result)
    }

    /// Binds SQL `NULL`. - Parameter index: from 1.
    public func bindNull(at index: Int) throws {
        try check(sqlite3_bind_null(handle, try parameter(index)))
    }

    /// Binds any `DatabaseValue`. - Parameters: `value`; `index`, from 1.
    public func bind(_ value: DatabaseValue, at index: Int) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let integer): try bind(integer, at: index)
        case .real(let real): try bind(real, at: index)
        case .text(let text): try bind(text, at: index)
        case .blob(let blob): try bind(blob, at: index)
        }
    }

    /// Resets, clears all bindings, then binds `values` to parameters 1, 2, ….
    /// - Parameter values: one value per parameter, in order.
    public func bind(_ values: [DatabaseValue]) throws {
        reset()
        clearBindings()
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    /// Sets every parameter back to `NULL`.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    /// Rewinds the statement so it can run again; bindings are kept. Ends any read it had open.
    public func reset() {
        sqlite3_reset(handle)  // returns the last step's error, already reported by step()
    }

    private func parameter(_ index: Int) throws -> Int32 {
        guard let position = Int32(exactly: index), position >= 1, index <= parameterCount else {
            throw DatabaseError(extendedCode: SQLITE_RANGE,
                                message: "parameter index \(index) out of range 1...\(parameterCount)", sql: sql)
        }
        return position
    }

    func check(_ result: Int32) throws {
        guard result == SQLITE_OK else { throw DatabaseError(connection: connection, result: result, sql: sql) }
    }
}
