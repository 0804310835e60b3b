import Foundation
import Testing
import Positioning
import Store
import SextantTestSupport
@testable import Server

@Suite(.serialized) struct RetentionServeTests {
    /// With retention on, the running service deletes history older than `retentionKeepDays` by
    /// itself (the simulated stream is from 2023, so every row is older than a day), and keeps each
    /// tag's last position.
    @Test func serviceAppliesRetentionWhileRunning() throws {
        let t = try TestService { c in
            c.retentionFullDays = 0.5
            c.retentionKeepDays = 1
            c.retentionInterval = 0.05
        }
        defer { t.stop() }
        let stream = demoLines(tags: 3, seconds: 3)
        try t.gateway().writeAll(stream)
        let s = t.waitFor { $0.linesIn >= stream.filter { $0 == 10 }.count && $0.historyRowsWritten >= $0.positionsOut }
        #expect(s.positionsOut > 0)
        let retention = try #require(t.host.retention)
        let deleted = retention.waitForRemoved(timeout: 10 * testTimeScale) { $0.positionsDeleted >= s.positionsOut }
            .positionsDeleted
        let reader = try HistoryStore(directory: t.directory)
        #expect(try reader.positionCount() == 0, "the service deleted the old history")
        #expect(deleted == s.positionsOut)
        #expect(try reader.lastPositions().count == 3, "last positions are kept")
    }

    /// Retention is off by default, and the settings are checked.
    @Test func retentionSettings() throws {
        #expect(ServiceConfig().retentionPolicy == nil)
        var c = ServiceConfig()
        try c.apply(json: Array(#"{"retentionKeepDays": 30, "retentionInterval": 5}"#.utf8))
        let day: Int64 = 86_400_000_000_000
        #expect(c.retentionPolicy == RetentionPolicy(fullRate: 7 * day, keep: 30 * day))
        c = ServiceConfig()
        c.retentionFullDays = 120
        #expect(c.retentionPolicy == RetentionPolicy(fullRate: 120 * day, keep: 120 * day))
        #expect(throws: ConfigError.self) { try c.apply(json: Array(#"{"retentionKeepDays": 30}"#.utf8)) }
        var d = ServiceConfig()
        #expect(throws: ConfigError.self) { try d.apply(json: Array(#"{"retentionInterval": 0}"#.utf8)) }
    }
}
