import Foundation
import Numerics
import Positioning
import Testing
@testable import Store

@Suite("PostgreSQL batch writer: last positions and the COPY encoding")
struct PostgresBatchWriterTests {
    @Test("last_positions holds each tag's newest row whatever order the batches bring them in", arguments: StoreKind.allCases)
    func lastPositionsKeepTheNewest(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter(batchSize: 100_000, maxDelay: .seconds(30))
            var newerA = makeEstimate(tag: "A", time: 10)
            newerA.anchors = 7
            writer.append(newerA)
            writer.append(makeEstimate(tag: "B", time: 10))
            writer.flush()
            // An older row of A (stored, but not A's last), a newer B, a new tag C twice in one batch.
            writer.append(makeEstimate(tag: "A", time: 5))
            writer.append(makeEstimate(tag: "B", time: 20))
            writer.append(makeEstimate(tag: "C", time: 3))
            writer.append(makeEstimate(tag: "C", time: 1))
            writer.flush()
            // An older row of C, then a row equal in time to B's last with other values: it replaces it.
            writer.append(makeEstimate(tag: "C", time: 2))
            var sameB = makeEstimate(tag: "B", time: 20)
            sameB.anchors = 9
            writer.append(sameB)
            writer.close()
            #expect(writer.stats.batches == 3 && writer.stats.positionsWritten == 8 && writer.stats.droppedRows == 0)
            let last = try store.lastPositions(site: "demo-warehouse")
            #expect(last.map(\.tag) == ["A", "B", "C"])
            #expect(last.map(\.time) == [10, 20, 3])
            #expect(last.map(\.anchors) == [7, 9, makeEstimate(tag: "C", time: 3).anchors])
            #expect(try store.positions(site: "demo-warehouse", tag: "A").map(\.time) == [5, 10])
        }
    }

    @Test("a large batch is split over two connections; if its first half fails to commit after the second did, the retry writes it once")
    func splitBatchRetriedOnce() throws {
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        let store = try PostgresHistoryStore(url: database.url)
        // Fails the first commit that carries a row of the first tag (the first half of a split
        // batch: the tags are in id order), with a transient error (53100, disk full). The sequence
        // is not rolled back with the transaction, so the retry's commit passes.
        let c = try PostgresConnection(url: database.url)
        try c.execute("""
            CREATE SEQUENCE fail_once;
            CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.tag_id = (SELECT min(id) FROM tags) THEN
                    IF nextval('fail_once') = 1 THEN
                        RAISE EXCEPTION 'injected commit failure' USING ERRCODE = '53100';
                    END IF;
                END IF;
                RETURN NULL;
            END $$;
            CREATE CONSTRAINT TRIGGER fail_once AFTER INSERT OR UPDATE ON positions
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_once();
            """)
        let tags = 8, steps = 2 * PostgresBatchWriter.minSplitRows / tags
        let writer = store.makeWriter(batchSize: 100_000, maxDelay: .seconds(30))
        for step in 0..<steps {
            for tag in 0..<tags { writer.append(makeEstimate(tag: "T\(tag)", time: Int64(step) * 1_000_000)) }
        }
        writer.flush()  // one attempt: the second half commits, the first does not
        let failed = writer.stats
        #expect(failed.failedBatches == 1 && failed.pending == tags * steps && failed.rowsWritten == 0, "\(failed)")
        #expect(try store.positionCount() == tags * steps / 2, "the second half's transaction committed")
        #expect(writer.waitUntilWritten(tags * steps, timeout: .seconds(20)) == tags * steps)
        let backends = try c.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        #expect(backends.int64(0, 0) == 3, "the store's connection and the writer's two")
        writer.close()
        #expect(writer.stats.droppedRows == 0 && writer.stats.positionsWritten == tags * steps)
        #expect(try store.positionCount() == tags * steps, "every row once")
        for tag in 0..<tags {
            #expect(try store.positions(site: "demo-warehouse", tag: "T\(tag)").map(\.time) == (0..<steps).map { Int64($0) * 1_000_000 })
        }
        #expect(try store.lastPositions(site: "demo-warehouse").map(\.time) == Array(repeating: Int64(steps - 1) * 1_000_000, count: tags))
    }

    @Test("a position row in the COPY input is the field-by-field encoding, with and without its point")
    func positionRowEncoding() {
        var a = makeEstimate(tag: "A", time: -1_234_567_890_123)
        a.position = Vec3(12.5, -0.25, .nan)
        a.velocity = Vec3(-.infinity, 0, -0.0)
        a.anchors = Int.max  // clamped to Int32.max
        a.motion = .stationary
        var b = makeEstimate(tag: "B", time: 7)
        b.position = Vec3(.nan, 3, 0)
        b.motion = .unknown
        for e in [a, b, makeEstimate(tag: "C", time: 0, threeD: true)] {
            for geometry in [false, true] {
                var fast = PostgresCopyBuffer()
                fast.position(e, tagID: 42, geometry: geometry)
                var reference = PostgresCopyBuffer()
                reference.beginRow(fields: geometry ? 18 : 17)
                reference.int64(42)
                reference.int64(e.time)
                for v in [e.position.x, e.position.y, e.position.z, e.velocity.x, e.velocity.y, e.velocity.z, e.sigma,
                          e.covXX, e.covXY, e.covYY, e.covXZ, e.covYZ, e.covZZ] { reference.double(v) }
                reference.int32(Int32(clamping: e.anchors))
                reference.text(e.motion == .stationary ? "stationary" : e.motion == .moving ? "moving" : "unknown")
                if geometry { reference.point(x: e.position.x, y: e.position.y) }
                #expect(fast.finish() == reference.finish(), "\(e.tag), geometry \(geometry)")
            }
        }
    }
}
