import Foundation
import Positioning
import Server
import Store
import Wire

/// Options shared by the commands that read the data directory (`site`, `history`, `zones`).
enum StoreOptions {
    /// `--data-dir DIR`: the same declaration as `serve`'s (`ServiceConfig.settings`, key `dataDirectory`).
    static let dataDirectory = Option<String?>.setting("dataDirectory")
    /// `--from TIME` and `--to TIME`.
    static let from = Option.time("from", help: "start, inclusive")
    static let to = Option.time("to", help: "end, exclusive")

    /// The options every command that reads the store takes.
    static let specs = [dataDirectory.spec, ConfigFile.option.spec]

    /// The data directory: `--data-dir`, else the `--config` file's `dataDirectory`, else the default.
    static func directory(_ a: Arguments) throws -> String {
        if let d = a[dataDirectory] { return d }
        return try ConfigFile.load(a).dataDirectory
    }

    /// Opens the store in the data directory. Reading commands refuse a directory without a database
    /// rather than create an empty one.
    /// - Parameters:
    ///   - a: the parsed arguments.
    ///   - create: create the directory and database if missing (for `site import`).
    static func open(_ a: Arguments, create: Bool = false) throws -> HistoryStore {
        let directory = try directory(a)
        let file = (directory as NSString).appendingPathComponent(StoreSchema.fileName)
        guard create || FileManager.default.fileExists(atPath: file) else {
            throw CommandError(message: "\(a.command): no database at '\(file)' (see --data-dir and --config)", code: .noInput)
        }
        do {
            return try HistoryStore(directory: directory)
        } catch {
            throw CommandError(message: "\(a.command): cannot open '\(file)': \(error)", code: .noInput)
        }
    }

    /// Refuses (exit 66, as `site show`) a site the store knows nothing of: no map stored and no
    /// position recorded under its id.
    static func requireSite(_ id: String, in store: HistoryStore, command: String) throws {
        guard try store.siteJSON(id: id) == nil, try store.tags(site: id).isEmpty else { return }
        throw CommandError(message: "\(command): no site '\(id)' in the database (see 'sextant site list')", code: .noInput)
    }

    /// `--from` and `--to`, checked to be in order.
    static func range(_ a: Arguments) throws(CommandError) -> (from: Nanoseconds?, to: Nanoseconds?) {
        let from = a[from], to = a[to]
        if let from, let to, to < from { throw .usage("\(a.command): --to is before --from") }
        return (from, to)
    }
}
