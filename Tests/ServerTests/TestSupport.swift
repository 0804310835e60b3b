import Foundation
import Testing
import Positioning
import Wire
import Store
@testable import Server

/// A fresh temporary data directory.
func temporaryDirectory() -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-server-tests-\(UUID().uuidString)")
    return url.path
}

/// The demo warehouse as a site file to import.
/// How many times slower than a plain debug build this run may be, for the tests' time bounds:
/// `SEXTANT_TEST_TIME_SCALE`, default 1. `scripts/sanitize` sets 2 under AddressSanitizer and 4 under
/// ThreadSanitizer, which slow the service's loop, and a bound on speed says nothing about memory errors
/// or races.
let testTimeScale = ProcessInfo.processInfo.environment["SEXTANT_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1

let demoSiteFile = SiteFile(site: .demoWarehouse, json: Array(Site.demoWarehouseJSON.utf8), path: "embedded")

/// Ingest lines of a short simulated run on the demo warehouse (time-ordered, with timestamps).
func demoLines(tags: Int = 4, seconds: Double = 4, seed: UInt64 = 7, prefix: String = "T") -> [UInt8] {
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

/// A service on loopback with ephemeral ports and a temporary data directory.
final class TestService {
    let directory: String
    let host: ServiceHost
    var service: Service { host.service }

    init(directory: String = temporaryDirectory(), imports: [SiteFile] = [demoSiteFile], logger: Logger = .silent,
         _ configure: (inout ServiceConfig) -> Void = { _ in }) throws {
        var config = ServiceConfig()
        config.ingestPort = 0
        config.feedPort = 0
        config.dataDirectory = directory
        config.historyMaxDelay = 0.02
        configure(&config)
        self.directory = directory
        host = try ServiceHost(config: config, imports: imports, fallback: nil, logger: logger)
        try host.service.start()
    }

    /// A gateway connection to the ingest port.
    func gateway() throws -> Socket { try Socket.connect(host: "127.0.0.1", port: service.ingestPort) }

    /// A feed connection that sends `subscription` (nil: nothing) first.
    func feed(_ subscription: String? = nil) throws -> LineReader {
        let s = try Socket.connect(host: "127.0.0.1", port: service.feedPort)
        if let subscription { try s.writeAll(Array((subscription + "\n").utf8)) }
        return LineReader(s)
    }

    /// Polls the counters until `condition` holds or `timeout` seconds passed; returns the last counters.
    @discardableResult
    func waitFor(timeout: Double = 10, _ condition: (ServiceStats) -> Bool) -> ServiceStats {
        let end = Date().addingTimeInterval(timeout)
        var s = service.stats()
        while !condition(s) && Date() < end {
            usleep(5_000)
            s = service.stats()
        }
        return s
    }

    /// Shuts down (history committed) and optionally removes the data directory.
    func stop(removeData: Bool = true) {
        service.shutdown()
        if removeData { try? FileManager.default.removeItem(atPath: directory) }
    }
}

/// Reads lines from a client socket with timeouts.
final class LineReader {
    let socket: Socket
    private var buffer: [UInt8] = []
    private(set) var closed = false

    init(_ socket: Socket) {
        self.socket = socket
        socket.setReceiveTimeout(0.05)
    }

    /// Reads lines until `stop` returns true for a line, the peer closes, or `timeout` passes.
    func lines(timeout: Double = 5, until stop: (String) -> Bool = { _ in false }) -> [String] {
        var out: [String] = []
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            while let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                out.append(line)
                if stop(line) { return out }
            }
            if closed { return out }
            guard let chunk = try? socket.read() else { closed = true; continue }
            if chunk.isEmpty {
                // An empty read is either the timeout (EAGAIN → []) or the end of stream; tell them apart.
                if isAtEnd() { closed = true }
                continue
            }
            buffer += chunk
        }
        return out
    }

    private func isAtEnd() -> Bool {
        var byte: UInt8 = 0
        let n = recv(socket.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n == 0
    }
}

/// The parsed `position` lines among `lines`.
func positionLines(_ lines: [String]) -> [ParsedLine] {
    lines.compactMap { try? ParsedLine.parse($0) }.filter { $0.measurement == "position" }
}
