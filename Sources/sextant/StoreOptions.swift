import Foundation
import Positioning
import Store
import Wire

/// Options shared by the commands that read the history database (`site`, `history`, `zones`):
/// `--data-dir` for the SQLite file, or `--database postgres://…` for PostgreSQL.
enum StoreOptions {
    /// The data directory's default, the same as `sextant serve`'s.
    static let defaultDataDirectory = "./sextant-data"

    /// Opens the store in `--data-dir` (default `./sextant-data`). Reading commands refuse a directory
    /// without a database rather than create an empty one.
    /// - Parameters:
    ///   - a: the parsed arguments.
    ///   - create: create the directory and database if missing (for `site import`).
    static func open(_ a: Arguments, create: Bool = false) throws -> any HistoryStorage {
        if let url = a.string("database") {
            guard HistoryDatabase.isPostgres(url) else {
                throw CommandError.usage("\(a.command): --database must be a postgres:// URL, got '\(url)'")
            }
            do {
                return try PostgresHistoryStore(url: url)
            } catch {
                throw CommandError(message: "\(a.command): cannot open the database: \(error)", code: .noInput)
            }
        }
        let directory = a.string("data-dir") ?? defaultDataDirectory
        let file = (directory as NSString).appendingPathComponent(StoreSchema.fileName)
        guard create || FileManager.default.fileExists(atPath: file) else {
            throw CommandError(message: "\(a.command): no database at '\(file)' (see --data-dir)", code: .noInput)
        }
        do {
            return try HistoryStore(directory: directory)
        } catch {
            throw CommandError(message: "\(a.command): cannot open '\(file)': \(error)", code: .noInput)
        }
    }

    /// Refuses (exit 66, as `site show`) a site the store knows nothing of: no map stored and no
    /// position recorded under its id.
    static func requireSite(_ id: String, in store: any HistoryStorage, command: String) throws {
        guard try store.siteJSON(id: id) == nil, try store.tags(site: id).isEmpty else { return }
        throw CommandError(message: "\(command): no site '\(id)' in the database (see 'sextant site list')", code: .noInput)
    }

    /// The time of option `name` (ISO 8601 or Unix nanoseconds), or nil when absent.
    static func time(_ a: Arguments, _ name: String) throws(CommandError) -> Nanoseconds? {
        guard let text = a.string(name) else { return nil }
        guard let t = TimeText.parse(text) else {
            throw .usage("\(a.command): --\(name) must be an ISO 8601 time with an offset (2026-11-30T14:05:00Z, "
                         + "2026-11-30T15:05:00.250+01:00) or Unix nanoseconds, got '\(text)'")
        }
        return t
    }

    /// `--from` and `--to`, checked to be in order.
    static func range(_ a: Arguments) throws(CommandError) -> (from: Nanoseconds?, to: Nanoseconds?) {
        let from = try time(a, "from"), to = try time(a, "to")
        if let from, let to, to < from { throw .usage("\(a.command): --to is before --from") }
        return (from, to)
    }
}
