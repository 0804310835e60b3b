import Foundation
public import Positioning
public import Store

/// The service with its data directory: the store (sites, history, last positions), the history
/// writer, and the `Service` on top. This is what `sextant serve` and the live demo run.
public final class ServiceHost: Sendable {
    public let store: any HistoryStorage
    public let writer: HistoryWriter
    public let service: Service
    /// The retention applied while the service runs (`config.retentionPolicy`); nil when off.
    public let retention: RetentionRunner?

    /// Opens (or creates) the data directory, saves the given site files in it, reloads every stored
    /// site and each tag's last position, and creates the service (not started).
    /// - Parameters:
    ///   - config: the settings; `dataDirectory` is where `sextant.sqlite` lives.
    ///   - imports: site files to store (replacing stored sites with the same id).
    ///   - fallback: served (and stored) when the store holds no site at all; nil to refuse to start.
    ///   - logger: structured log lines.
    /// - Throws: a store error, or `ConfigError` when there is no site to serve.
    public init(config: ServiceConfig, imports: [SiteFile], fallback: Site? = nil, logger: Logger = Logger()) throws {
        let files = Syscall.raiseOpenFileLimit()
        if files.after > files.before {
            logger.info("open file limit raised", ["from": files.before, "to": files.after])
        } else if files.after < 2048 {
            logger.warning("open file limit is low: each connection needs one", ["limit": files.after])
        }
        store = try HistoryDatabase.open(database: config.database, directory: config.dataDirectory)
        for file in imports {
            try store.saveSite(file.site, json: file.json)
            logger.info("site imported", ["site": file.site.id, "file": file.path, "anchors": file.site.anchors.count])
        }
        var sites = try store.loadSites()
        if sites.isEmpty, let fallback {
            try store.saveSite(fallback)
            logger.warning("no site configured: serving the embedded demo site", ["site": fallback.id])
            sites = [fallback]
        }
        guard !sites.isEmpty else {
            throw ConfigError(key: "sites", message: "no site to serve: give site files with --site (or a Sites/ directory)")
        }
        let last = try store.lastPositions()
        logger.info("history database opened", ["database": store.location, "sites": sites.map(\.id).joined(separator: ","),
                                              "known_tags": last.count])
        writer = store.makeWriter(batchSize: config.historyBatchSize,
                                  maxDelay: .nanoseconds(Int64(config.historyMaxDelay * 1e9)), maxPending: 1_000_000)
        let store = self.store
        let retention = config.retentionPolicy.map {
            RetentionRunner(store: store, policy: $0, interval: config.retentionInterval, logger: logger)
        }
        self.retention = retention
        do {
            // The HTTP port reads history on a connection of its own, off the loop.
            let reader = config.http == nil ? nil : try HistoryDatabase.open(database: config.database, directory: config.dataDirectory)
            service = try Service(config: config, sites: sites, lastPositions: last, history: writer,
                                  retention: retention, historyReader: reader,
                                  clusterStore: config.cluster == nil ? nil : store, logger: logger)
        } catch {
            writer.close()
            throw error
        }
    }
}
