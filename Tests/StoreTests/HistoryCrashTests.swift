import Foundation
import Positioning
import Testing
@testable import Store

@Suite("History after a crash")
struct HistoryCrashTests {
    struct Abort: Error {}

    /// A process killed with SIGKILL leaves on disk exactly what it had written: its page cache writes
    /// survive, nothing more happens. Copying the database, WAL and shared-memory files while a batch's
    /// transaction is open (and has already spilled pages into the WAL) gives that state
    /// deterministically, without killing anything.
    @Test("a batch cut off mid-transaction is invisible after reopening and the database is intact")
    func killedMidBatch() throws {
        try withTemporaryDirectory { directory in
            let live = directory.path("live")
            let store = try HistoryStore(directory: live)
            try store.saveSite(Site.demoWarehouse)
            let writer = store.makeWriter()
            for step in 0..<1000 { writer.append(makeEstimate(tag: "T\(step % 10)", time: Int64(step))) }
            writer.close()
            let committedWAL = fileSize(store.path + "-wal")

            let crashed = directory.path("crashed")
            try FileManager.default.createDirectory(atPath: crashed, withIntermediateDirectories: true)
            let database = try Database(path: store.path)
            try database.execute(sql: "PRAGMA cache_size = 8")  // pages: forces the batch to spill into the WAL
            #expect(throws: Abort.self) {
                try database.transaction {
                    let insert = try database.cachedStatement(sql: HistorySQL.insertPosition)
                    let upsert = try database.cachedStatement(sql: HistorySQL.upsertLastPosition)
                    try database.execute(sql: "INSERT INTO tags (site, tag) VALUES ('demo-warehouse', 'new')")
                    let newTag = database.lastInsertRowID
                    for step in 0..<50_000 {
                        try insert.bindPosition(makeEstimate(tag: "new", time: Int64(step)), tagID: newTag)
                        try insert.step()
                        insert.reset()
                    }
                    try upsert.bindPosition(makeEstimate(tag: "T0", time: 1_000_000), tagID: 1)
                    try upsert.step()
                    upsert.reset()
                    #expect(fileSize(store.path + "-wal") > committedWAL)  // uncommitted frames are on disk
                    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + suffix) {
                        try FileManager.default.copyItem(atPath: store.path + suffix,
                                                         toPath: crashed + "/sextant.sqlite" + suffix)
                    }
                    throw Abort()
                }
            }

            let reopened = try HistoryStore(directory: crashed)
            #expect(try reopened.positionCount() == 1000)
            #expect(try reopened.tags().map(\.tag) == (0..<10).map { "T\($0)" })
            #expect(try reopened.lastPositions().first == makeEstimate(tag: "T0", time: 990))
            #expect(try reopened.loadSites() == [Site.demoWarehouse])
            let check = try Database(path: reopened.path)
            #expect(try check.scalar("PRAGMA integrity_check") == .text("ok"))
        }
    }

    @Test("an uncommitted transaction is not visible to another connection, nor after reopening")
    func uncommittedInvisible() throws {
        try withTemporaryDirectory { directory in
            let dataDirectory = directory.path("data")
            let store = try HistoryStore(directory: dataDirectory)
            do {
                let writer = try Database(path: store.path)
                try writer.execute(sql: """
                    BEGIN IMMEDIATE;
                    INSERT INTO tags (site, tag) VALUES ('s', 't');
                    INSERT INTO measurements (site, t_ns, line) VALUES ('s', 1, x'00');
                    """)
                #expect(try store.measurementCount() == 0)
                #expect(try store.tags().isEmpty)
            }  // the connection closes here with its transaction still open
            let reopened = try HistoryStore(directory: dataDirectory)
            #expect(try reopened.measurementCount() == 0)
            #expect(try reopened.tags().isEmpty)
        }
    }
}

/// The size of the file at `path` in bytes, 0 if it does not exist.
func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}
