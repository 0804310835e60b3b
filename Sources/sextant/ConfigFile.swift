import Foundation
import Server

/// The JSON config file of `sextant serve`, which every command that reads the store or the service
/// (`serve`, `site`, `history`, `zones`, `status`) takes as `--config FILE`: a flag on the command line
/// wins over the file, which wins over the default.
enum ConfigFile {
    static let option = Option.text("config", "FILE", help: """
        the JSON config file of 'sextant serve' (the keys of docs/service.md); a flag given on the \
        command line wins over the file
        """)

    /// The defaults, then the file of `--config` when given; checked as `serve` checks it.
    /// - Throws: exit 66 for an unreadable file, 65 for one that is not a valid config.
    static func load(_ a: Arguments) throws -> ServiceConfig {
        var c = ServiceConfig()
        c.http = .standard
        guard let path = a[option] else { return c }
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(path, limit: BoundedFile.configLimit, kind: "a configuration file") } catch {
            throw CommandError(message: "\(a.command): \(error)", code: error.unreadable ? .noInput : .dataError)
        }
        do { try c.apply(json: bytes) } catch {
            throw CommandError.data("\(a.command): \(path): \(error)")
        }
        return c
    }
}
