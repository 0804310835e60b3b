public import Positioning

/// The SQLite store is the embedded `HistoryStorage`.
extension HistoryStore: HistoryStorage {
    /// The database file.
    public var location: String { path }

    /// The last known position of every tag (`site` nil) or of one site's tags.
    public func lastPositions(site: String?) throws -> [PositionEstimate] {
        try lastPositions(siteFilter: site)
    }
}
