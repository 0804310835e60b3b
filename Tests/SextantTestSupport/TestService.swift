import Foundation
public import Server

/// A service on loopback with ephemeral ports and a temporary data directory, started; every log
/// line at info level and above is kept in `log`.
public final class TestService {
    public let directory: String
    public let host: ServiceHost
    public let log = LogLines()
    public var service: Service { host.service }

    public init(directory: String = temporaryDirectory(), imports: [SiteFile] = [demoSiteFile],
                _ configure: (inout ServiceConfig) -> Void = { _ in }) throws {
        var config = ServiceConfig()
        config.ingestPort = 0
        config.feedPort = 0
        config.dataDirectory = directory
        config.historyMaxDelay = 0.02
        configure(&config)
        self.directory = directory
        host = try ServiceHost(config: config, imports: imports, fallback: nil, logger: log.logger())
        try host.service.start()
    }

    /// A gateway connection to the ingest port.
    public func gateway() throws -> Socket { try Socket.connect(host: "127.0.0.1", port: service.ingestPort) }

    /// A feed connection that sends `subscription` (nil: nothing) first.
    public func feed(_ subscription: String? = nil) throws -> LineReader {
        let s = try Socket.connect(host: "127.0.0.1", port: service.feedPort)
        if let subscription { try s.writeAll(Array((subscription + "\n").utf8)) }
        return LineReader(s)
    }

    /// A feed connection that sends `subscription`, returned once the service has subscribed it (its
    /// `feed client subscribed` log line appeared), so that every line ingested afterwards reaches it.
    public func subscribedFeed(_ subscription: String) throws -> LineReader {
        let before = log.containing(Self.subscribed).count
        let reader = try feed(subscription)
        log.waitFor(Self.subscribed, count: before + 1, timeout: 10)
        return reader
    }

    /// The log message of a feed client's subscription.
    public static let subscribed = "msg=\"feed client subscribed"

    /// Waits until `condition` holds for the counters (checked by the loop after each of its turns), or
    /// `timeout` seconds pass; returns the counters then.
    @discardableResult
    public func waitFor(timeout: Double = 10, _ condition: @escaping @Sendable (ServiceStats) -> Bool) -> ServiceStats {
        service.waitForStats(timeout: timeout * testTimeScale, until: condition)
    }

    /// Shuts down (history committed) and optionally removes the data directory.
    public func stop(removeData: Bool = true) {
        service.shutdown()
        if removeData { try? FileManager.default.removeItem(atPath: directory) }
    }
}
