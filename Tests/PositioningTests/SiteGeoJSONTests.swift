import Foundation
import Testing
@testable import Positioning

@Suite struct SiteGeoJSONTests {
    @Test func demoWarehouseAsGeoJSON() throws {
        let site = Site.demoWarehouse
        let object = try JSONSerialization.jsonObject(with: Data(site.geoJSONBytes())) as? [String: Any]
        let root = try #require(object)
        #expect(root["type"] as? String == "FeatureCollection")
        #expect(root["crs"] == nil)
        let features = try #require(root["features"] as? [[String: Any]])
        #expect(features.count == site.anchors.count + site.zones.count)
        let first = try #require(features.first)
        let point = try #require(first["geometry"] as? [String: Any])
        #expect(point["type"] as? String == "Point")
        #expect(point["coordinates"] as? [Double] == [site.anchors[0].position.x, site.anchors[0].position.y])
        let properties = try #require(first["properties"] as? [String: Any])
        #expect(properties["id"] as? String == site.anchors[0].id)
        #expect(properties["z"] as? Double == site.anchors[0].position.z)
        #expect(properties["technologies"] as? [String] == site.anchors[0].technologies.map(\.rawValue))
        let zone = try #require(features.last)
        let polygon = try #require(zone["geometry"] as? [String: Any])
        #expect(polygon["type"] as? String == "Polygon")
        let ring = try #require((polygon["coordinates"] as? [[[Double]]])?.first)
        #expect(ring.count == site.zones.last!.polygon.count + 1 && ring.first == ring.last, "a closed ring")
        #expect(Site.signedArea(ring.dropLast().map { ($0[0], $0[1]) }) > 0, "counter-clockwise")
    }

    @Test func clockwiseZonesAreReversedAndHeightsKept() throws {
        let zone = Zone(id: "z", name: "Z", polygon: [(0, 0), (0, 2), (2, 2), (2, 0)], minZ: 0.5, maxZ: 3)
        let base = Site.demoWarehouse
        let site = Site(id: "s", name: "S", dimensions: 3, tagHeight: nil, bounds: base.bounds, anchors: [], zones: [zone])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(site.geoJSONBytes())) as? [String: Any])
        let feature = try #require((root["features"] as? [[String: Any]])?.first)
        let ring = try #require(((feature["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])?.first)
        #expect(ring == [[2, 0], [2, 2], [0, 2], [0, 0], [2, 0]])
        let properties = try #require(feature["properties"] as? [String: Any])
        #expect(properties["minZ"] as? Double == 0.5 && properties["maxZ"] as? Double == 3)
    }
}
