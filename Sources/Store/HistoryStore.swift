internal import Dispatch
internal import Foundation

/// The live service's persistent store: site maps, position history, last positions and recorded
/// measurements, in `<directory>/sextant.sqlite` (WAL, `synchronous = NORMAL`, numbered migrations).
///
/// Reads and site writes run on this store's own connection; bulk history is written by
/// `HistoryWriter`s (`makeWriter`), each with a connection of its own on a dedicated thread. WAL
/// lets readers run while a writer commits.
///
/// Threading invariant: `database` is touched only inside `queue.sync`, so calls from any thread are
/// serialised on it; that is why the class may be `@unchecked Sendable`. The calls block their caller
/// for the duration of the SQL, so call them from a thread that may block, not the cooperative pool.
public final class HistoryStore: @unchecked Sendable {
    /// The data directory given to `init(directory:)`.
    public let directory: String
    /// The database file, `<directory>/sextant.sqlite`.
    public let path: String
    /// The store's connection; used only on `queue`.
    private let database: Database
    /// The serial queue that confines `database`.
    private let queue = DispatchQueue(label: "sextant.store")

    /// Opens (creating if needed) the data directory and its database, and applies any pending migrations.
    ///
    /// Throws if the directory cannot be created, the file cannot be opened in WAL mode, or the
    /// database was written by a newer schema (`MigrationError`).
    /// - Parameter directory: the data directory; intermediate directories are created too.
    public init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        self.path = (directory as NSString).appendingPathComponent(StoreSchema.fileName)
        self.database = try Database(path: path)
        try StoreSchema.migrator.migrate(database)
    }

    /// Creates a writer that batches positions (and recorded lines) into this database on its own thread.
    ///
    /// The writer opens its own connection to `path`. Call `close()` on it when done: its thread keeps
    /// it alive until then.
    /// - Parameters:
    ///   - batchSize: pending rows that start a write before `maxDelay` has passed. A write takes every
    ///     pending row, so a backlog is written in larger transactions.
    ///   - maxDelay: the longest a row waits before its batch is started.
    ///   - maxPending: the backlog bound (rows appended but not committed); rows beyond it are dropped
    ///     and counted in `Stats.droppedRows`.
    public func makeWriter(batchSize: Int = 4096, maxDelay: Duration = .milliseconds(200),
                           maxPending: Int = 1_000_000) -> HistoryWriter {
        HistoryWriter(path: path, batchSize: batchSize, maxDelay: maxDelay, maxPending: maxPending)
    }

    /// Runs `body` with the store's connection, serialised with every other call on this store.
    /// - Parameter body: the work; it must not keep the database or its statements.
    func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.sync { try body(database) }
    }
}
