/// Cluster mode's MQTT in: one ingest client per owned site, subscribed at QoS 1 to that site's
/// ingest topic only, with a persistent session whose client id is the site's
/// (`MQTTConfig.siteClientID`), the same on every instance. While no instance owns the site (an
/// owner died, or is handing it over), the broker queues its messages in that session, and the next
/// owner, resuming the session, receives them. The messages go into the bridge's inbox like those of
/// the single-instance ingest client.
///
/// Threading invariant: `clients` is touched only on the cluster coordinator's thread; each client is
/// thread-safe (see `MQTTClient`). That is why the class may be `@unchecked Sendable`.
final class ClusterSiteIngest: @unchecked Sendable {
    let bridge: MQTTBridge
    let logger: Logger
    private var clients: [String: MQTTClient] = [:]

    init(bridge: MQTTBridge, logger: Logger) {
        self.bridge = bridge
        self.logger = logger
    }

    /// The sites whose clients run.
    var sites: [String] { clients.keys.sorted() }

    /// Starts the site's client, which connects, resumes the site's session and subscribes.
    func start(site: String) throws(MQTTError) {
        guard clients[site] == nil else { return }
        let config = bridge.config
        var options = config.clientOptions(clientID: config.siteClientID(site))
        options.cleanSession = false
        options.sessionExpiry = UInt32(config.sessionExpiry)
        let client = try MQTTClient(options)
        let topic = config.ingestTopic(site)
        let logger = self.logger
        client.start(name: "sextant.site-in", handlers: .init(
            connected: { c in c.subscribe(topic, qos: 1) },
            message: { [weak bridge] t, payload, _, retained in bridge?.received(t, payload, retained: retained) },
            problem: { message in logger.warning("MQTT site ingest: \(message)", ["site": site]) },
            subscribed: { c in
                logger.info("site ingest subscribed", ["site": site, "topic": topic, "client_id": c.options.clientID])
            }))
        clients[site] = client
    }

    /// Stops the site's client: it disconnects cleanly, its session (and what is published to it
    /// meanwhile) stays with the broker for the next owner. Returns once its thread has ended.
    func stop(site: String) {
        clients.removeValue(forKey: site)?.stop(flush: 0)
    }

    /// Stops every client.
    func stopAll() {
        for site in sites { stop(site: site) }
    }
}
