import Testing
@testable import Store

@Suite("Statement")
struct StatementTests {
    /// A one-column table whose column has no type affinity, so values keep their storage class.
    func makeTable() throws -> Database {
        let database = try Database(path: ":memory:")
        try database.execute(sql: "CREATE TABLE v(id INTEGER PRIMARY KEY, x)")
        return database
    }

    /// Inserts one value through `bind`, reads it back through the matching accessor via `read`.
    func roundTrip<T>(_ database: Database, bind: (Statement) throws -> Void, read: (Statement) -> T) throws -> T? {
        let insert = try database.prepare(sql: "INSERT INTO v(x) VALUES (?)")
        try bind(insert)
        try insert.execute()
        let select = try database.prepare(sql: "SELECT x FROM v WHERE id = ?")
        try select.bind(database.lastInsertRowID, at: 1)
        return try select.step() ? read(select) : nil
    }

    @Test("integers round-trip, including the extremes", arguments: [Int64.min, -1, 0, 1, Int64.max])
    func integers(value: Int64) throws {
        let database = try makeTable()
        #expect(try roundTrip(database, bind: { try $0.bind(value, at: 1) }, read: { $0.int64(at: 0) }) == value)
        #expect(try database.scalar("SELECT typeof(x) FROM v") == .text("integer"))
    }

    @Test("doubles round-trip bit for bit",
          arguments: [0.0, -0.0, 1.5, -273.15, .pi, 1e-300, .greatestFiniteMagnitude, .infinity, -.infinity])
    func doubles(value: Double) throws {
        let database = try makeTable()
        let read = try roundTrip(database, bind: { try $0.bind(value, at: 1) }, read: { $0.double(at: 0) })
        // Exact comparison of the bit pattern: SQLite stores the IEEE 754 double unchanged.
        #expect(read?.bitPattern == value.bitPattern)
    }

    @Test("text round-trips: ASCII, empty, Unicode and an embedded NUL",
          arguments: ["anchor-7", "", "Zürich Hauptbahnhof", "北京 – 東京", "🛰️📡 tag", "e\u{301}", "a\u{0}b"])
    func strings(value: String) throws {
        let database = try makeTable()
        let read = try roundTrip(database, bind: { try $0.bind(value, at: 1) }, read: { $0.string(at: 0) }) ?? nil
        #expect(read == value)
        #expect(read?.utf8.elementsEqual(value.utf8) == true)
        #expect(try database.scalar("SELECT typeof(x) FROM v") == .text("text"))
    }

    @Test("blobs round-trip; an empty blob is not NULL", arguments: [[], [0], [0, 255, 1, 128], Array(0...255)] as [[UInt8]])
    func blobs(value: [UInt8]) throws {
        let database = try makeTable()
        #expect(try roundTrip(database, bind: { try $0.bind(value, at: 1) }, read: { $0.blob(at: 0) }) == value)
        #expect(try database.scalar("SELECT typeof(x) FROM v") == .text("blob"))
    }

    @Test("NULL round-trips and reads as nil for text and blob")
    func nulls() throws {
        let database = try makeTable()
        let read = try roundTrip(database, bind: { try $0.bindNull(at: 1) }, read: { $0 })
        #expect(read?.isNull(at: 0) == true)
        #expect(read?.string(at: 0) == nil)
        #expect(read?.blob(at: 0) == nil)
        #expect(read?.value(at: 0) == .null)
        #expect(try database.scalar("SELECT typeof(x) FROM v") == .text("null"))
    }

    @Test("DatabaseValue binds and reads back every storage class")
    func values() throws {
        let database = try makeTable()
        let values: [DatabaseValue] = [.null, .integer(-9), .real(2.25), .text("ünïcødé ✓"), .blob([1, 2, 3])]
        let insert = try database.cachedStatement(sql: "INSERT INTO v(x) VALUES (?)")
        for value in values {
            try insert.bind([value])
            try insert.execute()
        }
        var read: [DatabaseValue] = []
        try database.prepare(sql: "SELECT x FROM v ORDER BY id").forEachRow { read.append($0.value(at: 0)) }
        #expect(read == values)
    }

    @Test("several parameters and named columns")
    func columns() throws {
        let database = try Database(path: ":memory:")
        let statement = try database.prepare(sql: "SELECT ?1 + ?2 AS total, ?3 AS label")
        #expect(statement.parameterCount == 3)
        try statement.bind([.integer(2), .integer(3), .text("sum")])
        #expect(try statement.step())
        #expect(statement.columnCount == 2)
        #expect(statement.columnName(at: 0) == "total")
        #expect(statement.int64(at: 0) == 5)
        #expect(statement.string(at: 1) == "sum")
        #expect(try statement.step() == false)
    }

    @Test("binding out of range throws with the SQL")
    func bindOutOfRange() throws {
        let database = try Database(path: ":memory:")
        let statement = try database.prepare(sql: "SELECT ?")
        let error = #expect(throws: DatabaseError.self) { try statement.bind(Int64(1), at: 2) }
        #expect(error?.code == 25)  // SQLITE_RANGE
        #expect(error?.sql == "SELECT ?")
        #expect(throws: DatabaseError.self) { try statement.bind("x", at: 0) }
    }

    @Test("reset reruns a statement with its bindings kept")
    func reset() throws {
        let database = try Database(path: ":memory:")
        let statement = try database.prepare(sql: "SELECT ? * 2")
        try statement.bind(21.0, at: 1)
        #expect(try statement.step())
        #expect(statement.double(at: 0) == 42)  // exact: small integers are exact in binary64
        statement.reset()
        #expect(try statement.step())
        #expect(statement.double(at: 0) == 42)
    }

    @Test("the statement cache returns the same statement, reset and cleared, for the same SQL")
    func cache() throws {
        let database = try Database(path: ":memory:")
        let first = try database.cachedStatement(sql: "SELECT ?")
        try first.bind(Int64(7), at: 1)
        #expect(try first.step())
        let second = try database.cachedStatement(sql: "SELECT ?")
        #expect(first === second)
        #expect(try second.step())
        #expect(second.isNull(at: 0))  // bindings were cleared, and the statement restarted
        #expect(try database.cachedStatement(sql: "SELECT ? ") !== first)  // key is the exact text
        database.clearStatementCache()
        #expect(try database.cachedStatement(sql: "SELECT ?") !== first)
    }

    @Test("a step error is thrown with the SQL and leaves the statement reusable")
    func stepError() throws {
        let database = try Database(path: ":memory:")
        try database.execute(sql: "CREATE TABLE t(x NOT NULL)")
        let insert = try database.cachedStatement(sql: "INSERT INTO t VALUES (?)")
        let error = #expect(throws: DatabaseError.self) { try insert.execute() }
        #expect(error?.extendedCode == 1299)  // SQLITE_CONSTRAINT_NOTNULL
        #expect(error?.sql == "INSERT INTO t VALUES (?)")
        try insert.bind(Int64(1), at: 1)
        try insert.execute()
        #expect(database.changes == 1)
    }
}
