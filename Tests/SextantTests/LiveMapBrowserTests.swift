import Foundation
import Positioning
import Server
import Testing

/// The live map as a person sees it: the real `sextant serve`, fed by a simulated gateway, and the page
/// loaded in headless Chromium (started by `scripts/with-services`, driven by `scripts/map-check`).
@Suite struct LiveMapBrowserTests {
    /// What `scripts/map-check` prints.
    struct Check: Decodable {
        struct Snapshot: Decodable {
            struct Zone: Decodable { var id: String; var count: Int }
            struct Anchor: Decodable { var id: String; var state: String }
            var status: String
            /// What the canvas last drew: "POSITIONED DISTANCE REMOVED" tag counts (empty before a frame).
            var drawn: String
            var positions: String
            var error: String
            var sites: [String]
            var zones: [Zone]
            var anchors: [Anchor]

            /// The page's tag list: id -> (state, x, y).
            var tags: [String: (state: String, x: Double?, y: Double?)] {
                var out: [String: (state: String, x: Double?, y: Double?)] = [:]
                for line in positions.split(separator: "\n") {
                    let f = line.split(separator: " ").map(String.init)
                    guard f.count >= 2 else { continue }
                    out[f[0]] = (f[1], f.count >= 4 ? Double(f[2]) : nil, f.count >= 4 ? Double(f[3]) : nil)
                }
                return out
            }
        }
        var first: Snapshot
        var second: Snapshot
        var exceptions: [String]
    }

    static let token = "map-test-token-0123456789"
    static let timeScale = ProcessInfo.processInfo.environment["SEXTANT_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1

    @Test("in Chromium the live map shows the simulated tags moving, a distance-only tag, a removed tag, zones and anchor health")
    func liveMapInChromium() throws {
        guard let chromium = ProcessInfo.processInfo.environment["SEXTANT_TEST_CHROMIUM"], !chromium.isEmpty else {
            Issue.record("SEXTANT_TEST_CHROMIUM is not set: run the tests through scripts/with-services (scripts/test does), which starts headless Chromium (scripts/deps installs it)")
            return
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-map-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        // The demo warehouse with one more anchor that no gateway hears (it must stand out as unheard),
        // and the 3-D demo as a second site for the picker.
        var site = try #require(try JSONSerialization.jsonObject(with: Data(Site.demoWarehouseJSON.utf8)) as? [String: Any])
        var anchors = try #require(site["anchors"] as? [[String: Any]])
        anchors.append(["id": "X9", "position": [8, 24.5, 4], "technologies": ["uwb"]])
        site["anchors"] = anchors
        let sitePath = dir.appendingPathComponent("warehouse.json").path
        try JSONSerialization.data(withJSONObject: site).write(to: URL(fileURLWithPath: sitePath))
        let configPath = dir.appendingPathComponent("config.json").path
        try Data(#"{"feedTokens": [{"name": "map", "token": "\#(Self.token)"}]}"#.utf8).write(to: URL(fileURLWithPath: configPath))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: configPath)

        let run = try SextantProcess(["serve", "--config", configPath, "--data-dir", dir.appendingPathComponent("data").path,
                                      "--ingest-port", "0", "--feed-port", "0", "--http", "127.0.0.1:0", "--tag-timeout", "3",
                                      "--site", sitePath,
                                      "--site", SextantProcess.packageRoot.appendingPathComponent("Sites/demo-3d.json").path])
        defer { run.terminate() }
        var ingestPort: UInt16?, httpPort: UInt16?
        while ingestPort == nil || httpPort == nil, let line = try run.nextErrorLine() {
            let fields = line.split(separator: " ")
            if line.contains("msg=\"listening\"") {
                ingestPort = fields.first { $0.hasPrefix("ingest_port=") }.flatMap { UInt16($0.dropFirst("ingest_port=".count)) }
            } else if line.contains("msg=\"http listening\"") {
                httpPort = fields.first { $0.hasPrefix("http=") }.flatMap { $0.split(separator: ":").last }.flatMap { UInt16($0) }
            }
        }
        let ingest = try #require(ingestPort, "no ingest port logged"), http = try #require(httpPort, "no HTTP port logged")

        var sim = SimulationConfig(tags: 6, duration: 600)
        sim.startTime = ServiceClock.wallNow()
        let gateway = SimulatedGateway(site: .demoWarehouse, config: sim, port: ingest)
        try gateway.start()
        defer { gateway.stop() }
        let lifecycle = try LifecycleGateway(port: ingest)
        defer { lifecycle.stop() }

        let check = try Self.mapCheck(chromium: chromium, url: "http://127.0.0.1:\(http)/?site=demo-warehouse&token=\(Self.token)")
        #expect(check.exceptions.isEmpty, "the page threw: \(check.exceptions)")
        let first = check.first, second = check.second
        #expect(first.error.isEmpty, "the page shows an error: \(first.error)")
        #expect(second.status == "live", "the feed is not live: \(second.status)")
        #expect(Set(first.sites) == ["demo-warehouse", "demo-3d"], "site picker: \(first.sites)")

        // Every simulated tag has a position on the map, inside the site's bounds (40 × 25 m; the filter
        // may overshoot a wall by a little).
        let tags = first.tags
        for i in 0..<6 {
            let t = try #require(tags["T\(i)"], "T\(i) is not on the map: \(first.positions)")
            #expect(t.state == "position", "T\(i): \(t.state)")
            let x = try #require(t.x), y = try #require(t.y)
            #expect((-2...42).contains(x) && (-2...27).contains(y), "T\(i) at \(x), \(y)")
        }
        // The three Nearby-Interaction states, told apart.
        #expect(tags["P1"]?.state == "distance", "P1 (heard by C4 alone) is not distance only: \(first.positions)")
        #expect(tags["R1"]?.state == "removed", "R1 (ended by its anchors) is not shown removed: \(first.positions)")

        // Tags move: some tag's position differs between the two reads.
        let later = second.tags
        let moved = tags.filter { $0.value.state == "position" }.contains { id, t in
            guard let u = later[id], u.state == "position", let x = t.x, let y = t.y, let x2 = u.x, let y2 = u.y else { return false }
            return abs(x2 - x) + abs(y2 - y) >= 0.001   // the list's resolution (3 decimals)
        }
        #expect(moved, "no tag moved between\n\(first.positions)\nand\n\(second.positions)")

        // The canvas (drawn in the page's worker) shows the tags, not only the page's list.
        let drawn = second.drawn.split(separator: " ").compactMap { Int($0) }
        #expect(drawn.count == 3 && drawn[0] >= 6, "the map drew no tags: drawn \"\(second.drawn)\"")

        // Zones and anchor health.
        #expect(Set(second.zones.map(\.id)) == ["dock", "cold"])
        let health = Dictionary(second.anchors.map { ($0.id, $0.state) }, uniquingKeysWith: { a, _ in a })
        #expect(health.count == 12, "\(health)")
        #expect(health["X9"] == "unheard", "the anchor nobody hears does not stand out: \(health)")
        #expect(health["U5"] == "ok", "\(health)")
    }

    /// Runs `scripts/map-check` against the page; its JSON report.
    static func mapCheck(chromium: String, url: String) throws -> Check {
        let p = Process()
        p.executableURL = SextantProcess.packageRoot.appendingPathComponent("scripts/map-check")
        p.arguments = ["--chromium", chromium, "--min-tags", "6", "--min-distance", "1", "--min-removed", "1",
                       "--timeout", String(30 * timeScale), url]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Standard error is read on its own thread, so a chatty browser never fills its pipe and blocks.
        let errorBytes = ErrorBytes()
        let reader = DispatchGroup()
        DispatchQueue.global().async(group: reader) { errorBytes.data = err.fileHandleForReading.readDataToEndOfFile() }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        reader.wait()
        let errors = String(decoding: errorBytes.data, as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw MapCheckFailed(message: "scripts/map-check exited \(p.terminationStatus): \(errors)")
        }
        return try JSONDecoder().decode(Check.self, from: data)
    }

    /// Written by the reader thread, read after `DispatchGroup.wait` (which orders the two).
    final class ErrorBytes: @unchecked Sendable { var data = Data() }

    struct MapCheckFailed: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
