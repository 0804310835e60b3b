import Foundation
import Numerics
import Positioning
import Testing
import Wire

@Suite("Zone lines")
struct ZoneLineTests {
    @Test func zoneLine() {
        #expect(OutputEncoder.encode(.zone(site: "S", tag: "T", zone: "dock 1", event: .enter, time: 7))
                == "zone,site=S,tag=T,zone=dock\\ 1 event=\"enter\" 7\n")
        #expect(OutputEncoder.encode(.zone(site: "S", tag: "T", zone: "", event: .exit, time: 7)) == nil)
    }
}

@Suite("Time text")
struct TimeTextTests {
    @Test func iso8601AndNanoseconds() {
        // 2026-11-30T14:05:00Z = 1,796,047,500 s after the epoch (20,787 days + 50,700 s).
        let t: Int64 = 1_796_047_500_000_000_000
        #expect(TimeText.parse("2026-11-30T14:05:00Z") == t)
        #expect(TimeText.parse("\(t)") == t)
        #expect(TimeText.parse("2026-11-30T14:05:00.5Z") == t + 500_000_000)
        #expect(TimeText.parse("2026-11-30T14:05:00.000000001Z") == t + 1)
        #expect(TimeText.parse("2026-11-30T15:05:00+01:00") == t)
        #expect(TimeText.parse("2026-11-30 09:05:00-0500") == t)
        #expect(TimeText.parse("2026-11-30") == t - 50_700_000_000_000)
        #expect(TimeText.parse("1970-01-01T00:00:00Z") == 0)
        for bad in ["2026-11-30T14:05:00", "2026-02-30T00:00:00Z", "2026-11-30T14:05Z", "yesterday", "",
                    "2026-11-30T14:05:00.1234567891Z", "2026-11-30T14:05:00Zjunk"] {
            #expect(TimeText.parse(bad) == nil, "\(bad)")
        }
        #expect(TimeText.iso8601(t + 1) == "2026-11-30T14:05:00.000000001Z")
        #expect(TimeText.iso8601(-1) == "1969-12-31T23:59:59.999999999Z")
        for v: Int64 in [0, -1, t, 951_782_400_123_456_789] { #expect(TimeText.parse(TimeText.iso8601(v)) == v) }
        // Fewer fraction digits truncate (toward the earlier time, also before 1970).
        #expect(TimeText.iso8601(t + 123_999_999, fractionDigits: 3) == "2026-11-30T14:05:00.123Z")
        #expect(TimeText.iso8601(t + 999_999_999, fractionDigits: 0) == "2026-11-30T14:05:00Z")
        #expect(TimeText.iso8601(-1, fractionDigits: 3) == "1969-12-31T23:59:59.999Z")
        // The ends of Int64 (a gateway may send either): formatted, not trapped.
        #expect(TimeText.iso8601(.min) == "1677-09-21T00:12:43.145224192Z")
        #expect(TimeText.iso8601(.max) == "2262-04-11T23:47:16.854775807Z")
    }
}

@Suite("Position export")
struct PositionExportTests {
    static let p = PositionEstimate(site: "S", tag: "a,\"b\"", position: Vec3(1.23456, 2, 1.2), velocity: Vec3(0, 0, 0),
                                    covXX: 0.01, covXY: 0, covYY: 0.01, anchors: 4, motion: .moving, time: 42)

    @Test func csvRow() {
        var bytes: [UInt8] = []
        PositionExport.appendCSV(Self.p, to: &bytes)
        #expect(PositionExport.csvHeader.hasPrefix("t_ns,site,tag,x,y,z,sigma,"))
        #expect(String(decoding: bytes, as: UTF8.self)
                == "42,S,\"a,\"\"b\"\"\",1.2346,2,1.2,0.1,0,0,0,0.01,0,0.01,0,0,0,4,moving\n")
    }

    @Test func geoJSONTrack() throws {
        var q = Self.p
        q.time = 43
        q.position = Vec3(2, 3, 1.2)
        let text = PositionExport.geoJSONCollection([PositionExport.geoJSONFeature([Self.p, q])])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let feature = try #require((root["features"] as? [[String: Any]])?.first)
        let geometry = try #require(feature["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "LineString")
        #expect(geometry["coordinates"] as? [[Double]] == [[1.2346, 2, 1.2], [2, 3, 1.2]])
        let properties = try #require(feature["properties"] as? [String: Any])
        #expect(properties["tag"] as? String == "a,\"b\"")
        #expect(properties["t_ns"] as? [Int] == [42, 43])
        #expect(PositionExport.geoJSONFeature([Self.p]).contains("\"Point\""))
    }
}
