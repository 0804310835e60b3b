import Positioning
import Testing
@testable import Store

@Suite("History export pages")
struct HistoryExportTests {
    @Test("position pages cover [from, to) exactly: from inclusive, to exclusive, across page boundaries", arguments: StoreKind.allCases)
    func positionPagesAtRangeEdges(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter()
            let times: [Int64] = Array(stride(from: 100, through: 200, by: 10))
            for t in times { writer.append(makeEstimate(tag: "T1", time: t)) }
            writer.append(makeEstimate(tag: "T2", time: 150))
            writer.close()
            for pageSize in [1, 2, 3, 50] {
                var got: [Int64] = []
                var pages = 0
                try store.forEachPositionPage(site: "demo-warehouse", tag: "T1", from: 120, to: 180, pageSize: pageSize) {
                    got += $0.map(\.time)
                    pages += 1
                }
                #expect(got == [120, 130, 140, 150, 160, 170], "page size \(pageSize)")
                #expect(pages >= (6 + pageSize - 1) / pageSize && pages <= 6 / pageSize + 1)
            }
            var all: [Int64] = []
            try store.forEachPositionPage(site: "demo-warehouse", tag: "T1", pageSize: 4) { all += $0.map(\.time) }
            #expect(all == times)
            var none = 0
            try store.forEachPositionPage(site: "demo-warehouse", tag: "T1", from: 201, pageSize: 4) { _ in none += 1 }
            try store.forEachPositionPage(site: "demo-warehouse", tag: "T1", to: 100, pageSize: 4) { _ in none += 1 }
            #expect(none == 0, "empty ranges call nothing")
        }
    }

    @Test("measurement pages keep lines that share a time, in recording order, at the range edges", arguments: StoreKind.allCases)
    func measurementPagesWithEqualTimes(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter()
            // Five lines at t = 10 (more than a page), then t = 20 and 30; one line of another site.
            var expected: [String] = []
            for (i, t) in [10, 10, 10, 10, 10, 20, 30].enumerated() {
                let line = "line \(i) at \(t)"
                writer.append(measurementLine: Array(line.utf8), site: "S", time: Int64(t))
                expected.append(line)
            }
            writer.append(measurementLine: Array("other".utf8), site: "X", time: 10)
            writer.close()
            for pageSize in [1, 2, 3, 100] {
                var got: [String] = []
                try store.forEachMeasurementPage(site: "S", pageSize: pageSize) {
                    got += $0.map { String(decoding: $0.line, as: UTF8.self) }
                }
                #expect(got == expected, "page size \(pageSize)")
                var window: [String] = []
                try store.forEachMeasurementPage(site: "S", from: 10, to: 30, pageSize: pageSize) {
                    window += $0.map { String(decoding: $0.line, as: UTF8.self) }
                }
                #expect(window == Array(expected[0..<6]), "from inclusive, to exclusive; page size \(pageSize)")
            }
            var every = 0
            try store.forEachMeasurementPage(pageSize: 2) { every += $0.count }
            #expect(every == 8)
        }
    }
}
