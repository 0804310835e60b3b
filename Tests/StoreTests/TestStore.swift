import Foundation
import Positioning
import Testing
@testable import Store

/// The history databases a store test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// A throwaway PostgreSQL database on the server `scripts/with-services` starts
/// (`SEXTANT_TEST_POSTGRES`), created for one test and dropped afterwards.
struct TestPostgresDatabase {
    /// The database's URL.
    let url: String
    private let name: String
    private let server: String

    /// Creates a database with a fresh name. Fails (the tests need the server) when the variable is
    /// unset or the server does not answer.
    init() throws {
        guard let server = ProcessInfo.processInfo.environment["SEXTANT_TEST_POSTGRES"], !server.isEmpty else {
            throw TestServiceMissing(message: "SEXTANT_TEST_POSTGRES is not set: run the tests through "
                                     + "scripts/with-services (scripts/test does) so a PostgreSQL is started")
        }
        self.server = server
        name = "sextant_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        do {
            try PostgresConnection(url: server).execute("CREATE DATABASE \(name)")
        } catch {
            throw TestServiceMissing(message: "the PostgreSQL of scripts/with-services at \(server) failed: \(error)")
        }
        url = Self.url(server, database: name)
    }

    /// `server` with its database path replaced by `database`.
    static func url(_ server: String, database: String) -> String {
        guard let scheme = server.range(of: "://"), let slash = server[scheme.upperBound...].firstIndex(of: "/")
        else { return server + "/" + database }
        return String(server[..<slash]) + "/" + database
    }

    /// A fresh database at the current schema (a store opened on it once), then changed by `sql` into
    /// the layout of an older version, and a connection to it; the caller drops the database.
    static func olderLayout(_ sql: String) throws -> (database: TestPostgresDatabase, connection: PostgresConnection) {
        let database = try TestPostgresDatabase()
        do {
            _ = try PostgresHistoryStore(url: database.url)
            let c = try PostgresConnection(url: database.url)
            try c.execute(sql)
            return (database, c)
        } catch {
            database.drop()
            throw error
        }
    }

    /// Drops the database (ending its other sessions first).
    func drop() {
        try? PostgresConnection(url: server).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}

/// A test service (PostgreSQL) that is missing or failed: the test fails with this message.
struct TestServiceMissing: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A store of either kind with the defaulted arguments the tests use, plus `reopen()`.
struct TestStore {
    let base: any HistoryStorage
    let reopen: () throws -> TestStore

    func saveSite(_ site: Site, json: [UInt8]) throws { try base.saveSite(site, json: json) }
    func saveSite(_ site: Site) throws { try base.saveSite(site) }
    func loadSites() throws -> [Site] { try base.loadSites() }
    func siteJSON(id: String) throws -> [UInt8]? { try base.siteJSON(id: id) }
    @discardableResult func removeSite(id: String) throws -> Bool { try base.removeSite(id: id) }
    func lastPositions(site: String? = nil) throws -> [PositionEstimate] { try base.lastPositions(site: site) }
    func positions(site: String, tag: String, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                   limit: Int? = nil) throws -> [PositionEstimate] {
        try base.positions(site: site, tag: tag, from: from, to: to, limit: limit)
    }
    func positionCount(site: String? = nil, tag: String? = nil, from: Nanoseconds? = nil, to: Nanoseconds? = nil) throws -> Int {
        try base.positionCount(site: site, tag: tag, from: from, to: to)
    }
    func tags(site: String? = nil) throws -> [(site: String, tag: String)] { try base.tags(site: site) }
    func measurements(site: String? = nil, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                      limit: Int? = nil) throws -> [RecordedMeasurement] {
        try base.measurements(site: site, from: from, to: to, limit: limit)
    }
    func measurementCount() throws -> Int { try base.measurementCount() }
    func forEachMeasurementPage(site: String? = nil, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                                pageSize: Int = 50_000, _ body: ([RecordedMeasurement]) throws -> Void) throws {
        try base.forEachMeasurementPage(site: site, from: from, to: to, pageSize: pageSize, body)
    }
    func forEachPositionPage(site: String, tag: String, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                             pageSize: Int = 50_000, _ body: ([PositionEstimate]) throws -> Void) throws {
        try base.forEachPositionPage(site: site, tag: tag, from: from, to: to, pageSize: pageSize, body)
    }
    func zoneEvents(site: String, from: Nanoseconds? = nil, to: Nanoseconds? = nil) throws -> [ZoneEventRecord] {
        try base.zoneEvents(site: site, from: from, to: to)
    }
    func applyRetention(_ policy: RetentionPolicy, now: Nanoseconds, batchSize: Int = 10_000,
                        thinnedBefore: Nanoseconds? = nil, isCancelled: () -> Bool = { false }) throws -> RetentionResult {
        try base.applyRetention(policy, now: now, batchSize: batchSize, thinnedBefore: thinnedBefore, isCancelled: isCancelled)
    }
    func makeWriter(batchSize: Int = 4096, maxDelay: Duration = .milliseconds(200), maxPending: Int = 1_000_000) -> HistoryWriter {
        base.makeWriter(batchSize: batchSize, maxDelay: maxDelay, maxPending: maxPending)
    }
}

/// Runs `body` with a fresh, empty store of `kind` (SQLite in a temporary directory, or a new
/// PostgreSQL database), removed afterwards even if `body` throws.
func withStore<T>(_ kind: StoreKind, _ body: (TestStore) throws -> T) throws -> T {
    switch kind {
    case .sqlite:
        return try withTemporaryDirectory { directory in
            let path = directory.path("data")
            func open() throws -> TestStore { TestStore(base: try HistoryStore(directory: path), reopen: open) }
            return try body(try open())
        }
    case .postgres:
        let database = try TestPostgresDatabase()
        defer { database.drop() }
        func open() throws -> TestStore { TestStore(base: try PostgresHistoryStore(url: database.url), reopen: open) }
        return try body(try open())
    }
}
