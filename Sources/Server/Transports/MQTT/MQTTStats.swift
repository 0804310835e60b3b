/// The MQTT counters (in `ServiceStats.mqtt` when MQTT is on; `#stats` shows them as `mqtt_*`).
public struct MQTTStats: Sendable, Equatable {
    /// 1 while the ingest (subscribing) client is connected to the broker and its subscription
    /// acknowledged (messages published from then on reach it), and while the output (publishing)
    /// client is connected.
    public var inConnected = 0
    public var outConnected = 0
    /// Connections the broker accepted (both clients), and connections lost after that.
    public var connects = 0
    public var connectionsLost = 0
    /// Ingest messages received and positioned, and the lines in them.
    public var messagesIn = 0
    public var linesIn = 0
    /// Ingest messages refused whole: larger than `maxMessageBytes`, for a site not served, retained
    /// (a retained ingest message would be applied again at every reconnection).
    public var messagesTooLarge = 0
    public var messagesUnknownSite = 0
    public var messagesRetainedIgnored = 0
    /// Messages published on `<prefix>/<site>/rejected`.
    public var rejectionReports = 0
    /// Output messages handed to the broker connection, and outputs dropped (queue full, broker away).
    public var outPublished = 0
    public var outDropped = 0
    /// Times the ingest client stopped reading because the loop was behind (back-pressure).
    public var inboxWaits = 0

    public init() {}

    /// The counters as `(key, value)` pairs, keys `mqtt_…`.
    public var fields: [(String, Int)] {
        [("mqtt_in_connected", inConnected), ("mqtt_out_connected", outConnected), ("mqtt_connects", connects),
         ("mqtt_connections_lost", connectionsLost), ("mqtt_messages_in", messagesIn), ("mqtt_lines_in", linesIn),
         ("mqtt_messages_too_large", messagesTooLarge), ("mqtt_messages_unknown_site", messagesUnknownSite),
         ("mqtt_messages_retained_ignored", messagesRetainedIgnored), ("mqtt_rejection_reports", rejectionReports),
         ("mqtt_out_published", outPublished), ("mqtt_out_dropped", outDropped), ("mqtt_inbox_waits", inboxWaits)]
    }
}
