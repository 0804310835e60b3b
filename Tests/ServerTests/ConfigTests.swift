import Foundation
import Testing
import SextantTestSupport
@testable import Server

@Suite struct ConfigTests {
    @Test func jsonOverridesDefaultsAndNamesBadKeys() throws {
        var c = ServiceConfig()
        try c.apply(json: Array(#"{"bind": "0.0.0.0", "ingestPort": 9000, "overflow": "disconnect", "recordMeasurements": true, "sites": ["a.json"]}"#.utf8))
        #expect(c.bindAddress == "0.0.0.0")
        #expect(c.ingestPort == 9000)
        #expect(c.feedPort == 7401)
        #expect(c.overflow == .disconnect)
        #expect(c.recordMeasurements)
        #expect(c.sitePaths == ["a.json"])
        #expect(throws: ConfigError.self) { try c.apply(json: Array(#"{"ingestport": 1}"#.utf8)) }
        #expect(throws: ConfigError.self) { try c.apply(json: Array(#"{"feedQueueLines": 2}"#.utf8)) }
        #expect(throws: ConfigError.self) { try c.apply(json: Array(#"{"bind": "example.com"}"#.utf8)) }
    }

    /// Fuzzing finding: an integer setting at `Int.max` passed the range check as the Double 2^63 and
    /// trapped in `Int(_:)`; it is now refused with the key.
    @Test func integerSettingsAtTheEdgeOfIntAreRefusedNotTrapped() {
        for text in [#"{"maxLineLength": 9223372036854775807}"#, #"{"historyBatchSize": 9223372036854775807}"#,
                     #"{"feedQueueLines": 1e19}"#, #"{"ingestPort": 65535.5}"#] {
            var c = ServiceConfig()
            #expect(throws: ConfigError.self, "\(text)") { try c.apply(json: Array(text.utf8)) }
        }
        var c = ServiceConfig()
        #expect(throws: Never.self) { try c.apply(json: Array(#"{"maxLineLength": 16777216}"#.utf8)) }
        #expect(c.maxLineLength == 16_777_216)
    }

    /// Foundation reads JSON's `true` as a number that casts to 1 and `1` as a number that casts to
    /// `true`: a number setting given `true`, or a switch given `1`, was taken. Both are refused with
    /// the key now.
    @Test func booleansAndNumbersAreNotTakenForEachOther() {
        for (text, key) in [(#"{"tagTimeout": true}"#, "tagTimeout"), (#"{"ingestPort": false}"#, "ingestPort"),
                            (#"{"learnBias": 1}"#, "learnBias"), (#"{"recordMeasurements": 0}"#, "recordMeasurements")] {
            var c = ServiceConfig()
            #expect(throws: ConfigError.self, "\(text)") { try c.apply(json: Array(text.utf8)) }
            do { try c.apply(json: Array(text.utf8)) } catch { #expect("\(error)".contains(key), "\(error)") }
        }
        var c = ServiceConfig()
        #expect(throws: Never.self) { try c.apply(json: Array(#"{"tagTimeout": 12, "learnBias": false, "maxLateness": 0.5}"#.utf8)) }
        #expect(c.tagTimeout == 12 && !c.learnBias && c.maxLateness == 0.5)
    }

    @Test func subscriptionSyntax() throws {
        #expect(try Subscription.parse("") == .all)
        #expect(try Subscription.parse("subscribe") == .all)
        let s = try Subscription.parse("subscribe sites=a,b tags=T1 kinds=position,removed\r")
        #expect(s.sites == ["a", "b"])
        #expect(s.tags == ["T1"])
        #expect(s.kinds == [.position, .removed])
        #expect(s.matches(site: "a", tag: "T1", kind: .removed))
        #expect(!s.matches(site: "a", tag: "T1", kind: .proximity))
        #expect(!s.matches(site: "c", tag: "T1", kind: .position))
        #expect(try Subscription.parse("subscribe kinds=zone").kinds == [.zone])
        #expect(throws: SubscriptionError.self) { try Subscription.parse("subscribe kinds=zones") }
        #expect(throws: SubscriptionError.self) { try Subscription.parse("hello") }
    }

    @Test("the example configurations in deploy/ are valid")
    func deployExamples() throws {
        let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy")
        for name in ["sextant.json", "sextant-auth.json"] {
            var c = ServiceConfig()
            try c.apply(json: Array(try Data(contentsOf: deploy.appendingPathComponent(name))))
            #expect(c.dataDirectory == "/var/lib/sextant", "\(name)")
        }
    }
}
