public import Positioning

extension HistoryWriter {
    /// Queues one zone event for the `zone_events` table. Never blocks on SQLite.
    ///
    /// Zone events share the recorded-lines queue: they are batched, bounded, retried and flushed like
    /// the lines, and counted in `Stats.measurementsWritten` and `rowsWritten` when committed.
    /// - Parameters:
    ///   - site: the site id.
    ///   - tag: the tag id.
    ///   - zone: the zone id.
    ///   - event: enter or exit.
    ///   - time: the event's time, Unix nanoseconds.
    public func appendZoneEvent(site: String, tag: String, zone: String, event: ZoneEvent, time: Int64) {
        admit(.zoneEvent(site: site, tag: tag, zone: zone, event: event, time: time))
    }
}

extension HistoryBatchWriter {
    /// Inserts one zone event inside the batch's transaction.
    func insertZoneEvent(site: String, tag: String, zone: String, event: ZoneEvent, time: Int64,
                         into database: Database) throws {
        let insert = try database.cachedStatement(sql: """
            INSERT INTO zone_events (site, tag, zone, event, t_ns) VALUES (?1, ?2, ?3, ?4, ?5)
            """)
        try insert.bind(site, at: 1)
        try insert.bind(tag, at: 2)
        try insert.bind(zone, at: 3)
        try insert.bind(event.rawValue, at: 4)
        try insert.bind(time, at: 5)
        try insert.execute()
    }
}
