import Foundation
import Testing
import Positioning
import SextantTestSupport
@testable import Store
@testable import Server

/// The live service with its history in PostgreSQL (`config.database`).
@Suite struct PostgresServeTests {
    /// The service writes every position to PostgreSQL (no SQLite file appears), and a restart on the
    /// same database, with an empty data directory, reloads the sites and each tag's last position.
    @Test func serviceKeepsItsHistoryInPostgres() throws {
        guard let server = ProcessInfo.processInfo.environment["SEXTANT_TEST_POSTGRES"], !server.isEmpty else {
            Issue.record("SEXTANT_TEST_POSTGRES is not set: run the tests through scripts/with-services (scripts/test does)")
            return
        }
        let name = "sextant_serve_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try PostgresConnection(url: server).execute("CREATE DATABASE \(name)")
        defer { try? PostgresConnection(url: server).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        let url = String(server[..<server.lastIndex(of: "/")!]) + "/" + name

        let first = try TestService { $0.database = url }
        let stream = demoLines(tags: 3, seconds: 3)
        try first.gateway().writeAll(stream)
        first.waitFor { $0.linesIn >= stream.filter { $0 == 10 }.count }
        let before = first.service.lastPositions().sorted { $0.tag < $1.tag }
        first.stop(removeData: false)
        let written = first.service.stats()
        #expect(written.positionsOut > 0 && written.historyRowsWritten == written.positionsOut)
        #expect(!FileManager.default.fileExists(atPath: first.directory + "/" + StoreSchema.fileName))
        try? FileManager.default.removeItem(atPath: first.directory)

        let second = try TestService(imports: []) { $0.database = url }
        defer { second.stop(removeData: true) }
        #expect(second.host.store is PostgresHistoryStore)
        #expect(second.service.sites.map(\.id) == ["demo-warehouse"])
        #expect(try second.host.store.positionCount(site: nil, tag: nil, from: nil, to: nil) == written.positionsOut)
        let after = second.service.lastPositions().sorted { $0.tag < $1.tag }
        #expect(after.map(\.tag) == before.map(\.tag))
        #expect(after.map(\.time) == before.map(\.time))
        #expect(zip(after, before).allSatisfy { $0.position == $1.position }, "binary COPY keeps doubles exactly")
    }
}
