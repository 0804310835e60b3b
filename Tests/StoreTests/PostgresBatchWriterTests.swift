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
                reference.beginRow(fields: 17 + (geometry ? 1 : 0))
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
