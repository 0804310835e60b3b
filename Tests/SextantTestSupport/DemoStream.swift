internal import Positioning
public import Wire
public import Server

/// The demo warehouse as a site file to import.
public let demoSiteFile = SiteFile(site: .demoWarehouse, json: Array(Site.demoWarehouseJSON.utf8), path: "embedded")

/// Ingest lines of a short simulated run on the demo warehouse (time-ordered, with timestamps).
public func demoLines(tags: Int = 4, seconds: Double = 4, seed: UInt64 = 7, prefix: String = "T") -> [UInt8] {
    var sim = SimulationConfig(tags: tags, duration: seconds)
    sim.seed = seed
    sim.tagPrefix = prefix
    sim.nlosProbability = 0
    sim.outlierProbability = 0
    sim.dropoutRate = 0
    sim.suspendRate = 0
    var bytes: [UInt8] = []
    Simulator(site: .demoWarehouse, config: sim).generate { IngestEncoder.append($0, to: &bytes) }
    return bytes
}

/// The number of lines in `bytes` (its newlines).
public func lineCount(_ bytes: [UInt8]) -> Int { bytes.filter { $0 == 10 }.count }

/// The parsed `position` lines among `lines`.
public func positionLines(_ lines: [String]) -> [ParsedLine] {
    lines.compactMap { try? ParsedLine.parse($0) }.filter { $0.measurement == "position" }
}
