import Foundation
import Testing
@testable import Store

@Suite("Database")
struct DatabaseTests {
    @Test("a file database runs in WAL with NORMAL sync and foreign keys on")
    func fileDatabaseIsWAL() throws {
        try withTemporaryDirectory { directory in
            let database = try Database(path: directory.path("wal.sqlite"))
            #expect(try database.scalar("PRAGMA journal_mode") == .text("wal"))
            #expect(try database.scalar("PRAGMA synchronous") == .integer(1))  // 1 = NORMAL
            #expect(try database.scalar("PRAGMA foreign_keys") == .integer(1))
            #expect(FileManager.default.fileExists(atPath: directory.path("wal.sqlite")))
        }
    }

    @Test("an in-memory database is accepted with journal_mode memory")
    func memoryDatabase() throws {
        let database = try Database(path: ":memory:")
        #expect(try database.scalar("PRAGMA journal_mode") == .text("memory"))
    }

    @Test("opening a path in a missing directory fails with the path in the message")
    func openFailure() throws {
        let error = #expect(throws: DatabaseError.self) {
            _ = try Database(path: "/nonexistent-sextant-dir/x/y.sqlite")
        }
        #expect(error?.code == 14)  // SQLITE_CANTOPEN
        #expect(error?.message.contains("/nonexistent-sextant-dir/x/y.sqlite") == true)
    }

    @Test("bad SQL throws a DatabaseError with code, message and the SQL")
    func badSQL() throws {
        let database = try Database(path: ":memory:")
        let sql = "SELEKT * FROM nowhere"
        let error = #expect(throws: DatabaseError.self) { _ = try database.prepare(sql: sql) }
        #expect(error?.code == 1)  // SQLITE_ERROR
        #expect(error?.message.contains("syntax error") == true)
        #expect(error?.sql == sql)
        #expect(error?.description.contains(sql) == true)

        let missing = #expect(throws: DatabaseError.self) { try database.execute(sql: "SELECT * FROM nowhere") }
        #expect(missing?.message == "no such table: nowhere")
    }

    @Test("a failing statement in a script is reported alone, after earlier ones ran")
    func scriptError() throws {
        let database = try Database(path: ":memory:")
        let error = #expect(throws: DatabaseError.self) {
            try database.execute(sql: "CREATE TABLE a(x); -- note\n INSERT INTO b VALUES (1); CREATE TABLE c(x);")
        }
        #expect(error?.sql?.contains("INSERT INTO b") == true)
        #expect(error?.sql?.contains("CREATE TABLE a") == false)
        #expect(try database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'a'") == .integer(1))
        #expect(try database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'c'") == .integer(0))
    }

    @Test("constraint violations carry the extended code")
    func constraintError() throws {
        let database = try Database(path: ":memory:")
        try database.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE); INSERT INTO t(name) VALUES ('a');")
        let error = #expect(throws: DatabaseError.self) { try database.execute(sql: "INSERT INTO t(name) VALUES ('a')") }
        #expect(error?.isConstraintViolation == true)
        #expect(error?.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
    }

    @Test("foreign keys are enforced")
    func foreignKeys() throws {
        let database = try Database(path: ":memory:")
        try database.execute(sql: """
            CREATE TABLE site(id INTEGER PRIMARY KEY);
            CREATE TABLE anchor(id INTEGER PRIMARY KEY, site INTEGER NOT NULL REFERENCES site(id));
            """)
        let error = #expect(throws: DatabaseError.self) { try database.execute(sql: "INSERT INTO anchor(site) VALUES (7)") }
        #expect(error?.extendedCode == 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
    }

    @Test("prepare refuses more than one statement, and an empty one")
    func prepareOneStatement() throws {
        let database = try Database(path: ":memory:")
        #expect(throws: DatabaseError.self) { _ = try database.prepare(sql: "SELECT 1; SELECT 2") }
        #expect(throws: DatabaseError.self) { _ = try database.prepare(sql: "  -- nothing\n") }
        _ = try database.prepare(sql: "SELECT 1;  \n")
    }

    @Test("a transaction commits its work and returns the body's value")
    func transactionCommits() throws {
        let database = try Database(path: ":memory:")
        try database.execute(sql: "CREATE TABLE t(x INTEGER)")
        let rowID = try database.transaction {
            try database.execute(sql: "INSERT INTO t VALUES (42)")
            #expect(database.isInTransaction)
            return database.lastInsertRowID
        }
        #expect(rowID == 1)
        #expect(!database.isInTransaction)
        #expect(try database.scalar("SELECT x FROM t") == .integer(42))
    }

    struct Abort: Error {}

    @Test("a throwing body rolls the transaction back and rethrows its error")
    func transactionRollsBack() throws {
        try withTemporaryDirectory { directory in
            let database = try Database(path: directory.path("tx.sqlite"))
            try database.execute(sql: "CREATE TABLE t(x INTEGER)")
            #expect(throws: Abort.self) {
                try database.transaction {
                    try database.execute(sql: "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);")
                    throw Abort()
                }
            }
            #expect(!database.isInTransaction)
            #expect(try database.scalar("SELECT count(*) FROM t") == .integer(0))
        }
    }

    @Test("transactions do not nest")
    func nestedTransactionFails() throws {
        let database = try Database(path: ":memory:")
        #expect(throws: DatabaseError.self) {
            try database.transaction { try database.transaction {} }
        }
        #expect(!database.isInTransaction)
    }

    @Test("a second connection waits out the busy timeout then reports busy")
    func busyTimeout() throws {
        try withTemporaryDirectory { directory in
            let writer = try Database(path: directory.path("busy.sqlite"))
            let other = try Database(path: directory.path("busy.sqlite"), busyTimeout: .milliseconds(50))
            try writer.execute(sql: "CREATE TABLE t(x)")
            try writer.execute(sql: "BEGIN IMMEDIATE")
            let error = #expect(throws: DatabaseError.self) { try other.transaction {} }
            #expect(error?.isBusy == true)
            try writer.execute(sql: "ROLLBACK")
        }
    }
}
