import Foundation
import Numerics
import Positioning
import Testing
import Wire

@Suite("Output JSON")
struct OutputJSONTests {
    static func position(site: String = "hall", tag: String = "t1", threeD: Bool = false) -> PositionEstimate {
        var p = PositionEstimate(site: site, tag: tag, position: Vec3(1.23456, -2.5, 0.75),
                                 velocity: Vec3(0.1, 0, -0.02), covXX: 0.0004, covXY: -1.5e-5, covYY: 0.00091,
                                 covXZ: threeD ? 2e-6 : 0, covYZ: threeD ? -3e-6 : 0, covZZ: threeD ? 0.0025 : 0,
                                 anchors: 5, motion: .moving, time: 1_796_180_645_123_456_789)
        if threeD { p.mirror = Vec3(1.23456, -2.5, -0.75) }
        return p
    }

    static func object(_ output: Output) throws -> [String: Any] {
        let text = try #require(OutputJSON.encode(output))
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func positionHasEveryFieldWithLineProtocolPrecision() throws {
        let o = try Self.object(.position(Self.position()))
        #expect(o["type"] as? String == "position")
        #expect(o["site"] as? String == "hall" && o["tag"] as? String == "t1")
        #expect(o["time"] as? String == "2026-12-02T03:04:05.123456789Z")
        #expect(o["timeNs"] as? String == "1796180645123456789")
        // Metres with 4 decimals: 1.23456 is written 1.2346.
        #expect(o["x"] as? Double == 1.2346)
        #expect(o["y"] as? Double == -2.5 && o["z"] as? Double == 0.75)
        #expect(o["vx"] as? Double == 0.1 && o["vz"] as? Double == -0.02)
        #expect(o["anchors"] as? Int == 5 && o["motion"] as? String == "moving")
        let cov = try #require(o["cov"] as? [String: Double])
        #expect(Set(cov.keys) == ["xx", "xy", "yy"])
        #expect(cov["xy"] == -1.5e-5)
        // sigma = sqrt((xx + yy) / 2), 6 significant digits.
        let sigma = try #require(o["sigma"] as? Double)
        #expect(abs(sigma - (0.5 * (0.0004 + 0.00091)).squareRoot()) < 1e-7)
        #expect(o["mirror"] == nil)
    }

    @Test func threeDPositionCarriesVerticalTermsAndMirror() throws {
        let o = try Self.object(.position(Self.position(threeD: true)))
        let cov = try #require(o["cov"] as? [String: Double])
        #expect(Set(cov.keys) == ["xx", "xy", "yy", "xz", "yz", "zz"])
        #expect(cov["zz"] == 0.0025)
        let mirror = try #require(o["mirror"] as? [String: Double])
        #expect(mirror["z"] == -0.75)
    }

    @Test func otherKindsAndTheirFields() throws {
        let t: Nanoseconds = -1  // one nanosecond before the epoch
        let prox = try Self.object(.proximity(site: "s", tag: "t", anchor: "a1", distance: 3.21, azimuth: 0.5235987, time: t))
        #expect(prox["type"] as? String == "proximity" && prox["anchor"] as? String == "a1")
        #expect(prox["distance"] as? Double == 3.21 && prox["azimuth"] as? Double == 0.523599)
        #expect(prox["time"] as? String == "1969-12-31T23:59:59.999999999Z" && prox["timeNs"] as? String == "-1")
        let bare = try Self.object(.proximity(site: "s", tag: "t", anchor: "a1", distance: 1, azimuth: nil, time: 0))
        #expect(bare["azimuth"] == nil && bare["time"] as? String == "1970-01-01T00:00:00.000000000Z")
        let removed = try Self.object(.removed(site: "s", tag: "t", reason: .peerEnded, time: 5))
        #expect(removed["type"] as? String == "removed" && removed["reason"] as? String == "peerEnded")
        let zone = try Self.object(.zone(site: "s", tag: "t", zone: "dock 1", event: .exit, time: 5))
        #expect(zone["zone"] as? String == "dock 1" && zone["event"] as? String == "exit")
    }

    @Test func idsAreEscapedAndRoundTrip() throws {
        for id in ["a\"b", #"back\slash"#, "line\nbreak", "tab\there", "nul\u{0}x", "esc\u{1B}[31m", "del\u{7F}", "ünï ✓"] {
            let o = try Self.object(.removed(site: id, tag: id, reason: .timeout, time: 0))
            #expect(o["site"] as? String == id && o["tag"] as? String == id)
        }
    }

    @Test func timesMatchTheISOFormatterAcrossTheRange() {
        var rng = SeededRandom(seed: 6455)
        for _ in 0..<2000 {
            let t = Int64.random(in: Int64.min...Int64.max, using: &rng)
            var bytes: [UInt8] = []
            OutputJSON.appendISO8601(t, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == TimeText.iso8601(t))
        }
    }

    @Test func nonFiniteNumbersAreRefusedWithNothingWritten() {
        var p = Self.position()
        p.covYY = .nan
        var bytes: [UInt8] = [1, 2]
        #expect(!OutputJSON.append(.position(p), to: &bytes))
        #expect(!OutputJSON.append(.proximity(site: "s", tag: "t", anchor: "a", distance: .infinity, azimuth: nil, time: 0),
                                   to: &bytes))
        #expect(bytes == [1, 2])
    }
}
