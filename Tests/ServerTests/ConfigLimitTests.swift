import Foundation
import Testing
import SextantTestSupport
@testable import Server

/// Every numeric setting has a range: a value beyond it is refused with the key and the range, never
/// taken (`historyBatchSize` 1e12 ended `serve` with an allocation failure, exit 134).
@Suite struct ConfigLimitTests {
    /// The numeric keys of the config file.
    static let numericKeys = ServiceConfig.jsonKeys.filter {
        !["bind", "dataDirectory", "sites", "learnBias", "overflow", "recordMeasurements", "ingestTokens", "feedTokens",
          "timestampPrecision"].contains($0)
    }

    @Test("historyBatchSize 1e12 is refused with its key and range")
    func historyBatchSize() {
        var c = ServiceConfig()
        do {
            try c.apply(json: Array(#"{"historyBatchSize": 1000000000000}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.key == "historyBatchSize")
            #expect(error.message == "must be between 1 and 100000", "\(error)")
        }
    }

    @Test("every numeric key refuses 1e15 and -1e15, naming itself", arguments: numericKeys)
    func hugeValues(key: String) {
        for value in ["1e15", "-1e15", "1000000000000000"] {
            var c = ServiceConfig()
            do {
                try c.apply(json: Array("{\"\(key)\": \(value)}".utf8))
                Issue.record("\(key): \(value) was accepted")
            } catch {
                #expect(error.key == key, "\(key): \(value): \(error)")
            }
        }
    }

    @Test("timestampPrecision and ingestIdleTimeout are read and checked")
    func newKeys() throws {
        var c = ServiceConfig()
        #expect(c.timestampPrecision == .ns && c.ingestIdleTimeout == 900)
        try c.apply(json: Array(#"{"timestampPrecision": "ms", "ingestIdleTimeout": 30}"#.utf8))
        #expect(c.timestampPrecision == .ms && c.ingestIdleTimeout == 30)
        #expect(throws: ConfigError(key: "timestampPrecision", message: "must be ns, us, ms or s, not \"min\"")) {
            try c.apply(json: Array(#"{"timestampPrecision": "min"}"#.utf8))
        }
    }

    @Test("a file larger than the limit, /dev/zero, is refused without reading it all")
    func boundedRead() throws {
        do {
            _ = try BoundedFile.read("/dev/zero", limit: BoundedFile.configLimit, kind: "a configuration file")
            Issue.record("read")
        } catch {
            #expect(!error.unreadable)
            #expect(error.description == "/dev/zero: is larger than 1048576 bytes; not a configuration file")
        }
        do {
            _ = try BoundedFile.read("/nonexistent/x.json", limit: 10, kind: "a site file")
            Issue.record("read")
        } catch {
            #expect(error.unreadable)
        }
    }

    @Test("a site file of /dev/zero is refused by the site import")
    func siteImportBounded() {
        #expect(throws: SiteImportError.self) { try SiteImport.read(["/dev/zero"]) }
    }
}
