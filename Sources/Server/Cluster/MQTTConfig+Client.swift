extension MQTTConfig {
    /// The client options every connection to this broker shares (host, protocol, login, TLS,
    /// keep-alive, back-off), with `clientID`.
    func clientOptions(clientID: String) -> MQTTClient.Options {
        var o = MQTTClient.Options(clientID: clientID)
        o.host = host
        o.port = Int32(port)
        o.protocolVersion = protocolVersion
        o.keepAlive = Int32(keepAlive)
        o.username = username
        o.password = password
        o.caFile = caFile
        o.reconnectMaxDelay = reconnectMaxDelay
        return o
    }

    /// The client id of one site's ingest session in cluster mode, the same on every instance (the
    /// broker keeps one session per site, which the site's owner of the moment resumes):
    /// `<prefix>-site-<site>`.
    func siteClientID(_ site: String) -> String { "\(prefix)-site-\(MQTTTopic.level(site))" }

    /// `<prefix>/<site>/ingest`.
    func ingestTopic(_ site: String) -> String { "\(prefix)/\(MQTTTopic.level(site))/ingest" }
}
