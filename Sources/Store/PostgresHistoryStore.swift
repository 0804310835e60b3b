internal import Dispatch
internal import Positioning

/// The history in a PostgreSQL database: the same tables, migrations, queries and retention as the
/// SQLite `HistoryStore`, selected with `--database postgres://…` (or the config key `database`).
///
/// Reads and site writes run on this store's own connection; `makeWriter` gives a `HistoryWriter`
/// whose thread has a connection of its own and writes each batch with `COPY`. A lost connection is
/// opened again on the next call. Where PostGIS is installed, `positions.geom` holds each position's
/// (x, y), `cell_visits` where each tag was (grid cell and time bucket), and `positionsInside`
/// answers "who was inside this polygon".
///
/// Threading invariant: `connection` is touched only inside `queue.sync`, so calls from any thread
/// are serialised on it; that is why the class may be `@unchecked Sendable`. Every call blocks its
/// caller on the network.
public final class PostgresHistoryStore: @unchecked Sendable {
    /// The libpq URL given to `init(url:)`.
    public let url: String
    /// True when `positions.geom` exists (PostGIS is installed in the server).
    public let isSpatial: Bool
    /// True when `geom` is a plain column, so that the writer sends each point (false when the
    /// server computes it from a generated column it could not alter).
    private let writesGeometry: Bool
    /// True when `cell_visits` and `sextant_inside` exist: the writer stores the visits its rows
    /// start, `positionsInside` goes through them, and retention prunes them.
    let hasCells: Bool
    /// The store's connection; used only on `queue`, opened again if lost.
    private var connection: PostgresConnection
    /// The serial queue that confines `connection`.
    private let queue = DispatchQueue(label: "sextant.store.postgres")

    /// Connects, applies pending migrations, and adds PostGIS's `geom` column where available.
    /// - Parameters:
    ///   - url: a libpq URL, `postgres://user:password@host:port/database`.
    ///   - spatial: false leaves PostGIS's column out of a database that has none yet, even where the
    ///     server offers PostGIS (a store that never answers polygon queries writes faster).
    /// - Throws: `PostgresError` when the server cannot be reached or refuses, `MigrationError`
    ///   when the database was written by a newer schema.
    public init(url: String, spatial: Bool = true) throws {
        self.url = url
        connection = try PostgresConnection(url: url)
        try PostgresSchema.migrate(connection)
        let found = spatial ? PostgresSchema.enableSpatial(connection) : PostgresSchema.spatial(connection)
        isSpatial = found.geometry != .none
        writesGeometry = found.geometry == .plain
        hasCells = found.cells
    }

    /// The URL without its password, for logs.
    public var location: String { Self.redacted(url) }

    /// `url` with the password of `user:password@` replaced by `***`.
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@"),
              let colon = url[scheme.upperBound..<at].firstIndex(of: ":") else { return url }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }

    /// A writer whose thread writes to this database over a connection of its own, with `COPY`.
    /// - Parameters: as `HistoryStore.makeWriter`.
    public func makeWriter(batchSize: Int = 4096, maxDelay: Duration = .milliseconds(200),
                           maxPending: Int = 1_000_000) -> HistoryWriter {
        HistoryWriter(batchWriter: PostgresBatchWriter(url: url, geometry: writesGeometry, cells: hasCells), batchSize: batchSize, maxDelay: maxDelay,
                      maxPending: maxPending)
    }

    /// Runs `body` with the store's connection, serialised with every other call on this store. A
    /// connection found lost (the server restarted since the last call) is opened again and `body`
    /// run once more; `body` must therefore be one statement or one transaction.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try queue.sync {
            if !connection.isOpen { connection = try PostgresConnection(url: url) }
            do {
                return try body(connection)
            } catch let error as PostgresError where error.isConnectionFailure || error.sqlState == .adminShutdown {
                connection = try PostgresConnection(url: url)
                return try body(connection)
            }
        }
    }
}
