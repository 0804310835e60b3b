import Positioning
import Store

extension Service {
    /// Cluster mode's parts on the loop (the fence, the ownership gate) and the coordinator; nil when off.
    static func makeCluster(config: ServiceConfig, sites: [Site], loop: ServiceLoop, bridge: MQTTBridge?,
                            store: (any HistoryStorage)?, logger: Logger) -> ClusterCoordinator? {
        guard let c = config.cluster, let bridge, let database = config.database else { return nil }
        let timing = PostgresClusterLedger.Timing(takeover: c.takeoverSeconds)
        let lease = ClusterLease(seconds: timing.lease)
        let fence = ClusterTransport(loop: loop, lease: lease)
        loop.engine.ownedSites = []
        loop.cluster = fence
        loop.add(fence, tokens: [])
        return ClusterCoordinator(config: c, database: database, sites: sites.map(\.id), loop: loop,
                                  ingest: ClusterSiteIngest(bridge: bridge, logger: logger), store: store,
                                  lease: lease, logger: logger)
    }
}
