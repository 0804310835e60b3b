import Foundation
public import Positioning

/// A site map read from a file, with its exact bytes (stored as given).
public struct SiteFile: Sendable {
    public var site: Site
    public var json: [UInt8]
    /// The file it came from.
    public var path: String

    public init(site: Site, json: [UInt8], path: String) { self.site = site; self.json = json; self.path = path }
}

/// A site file that cannot be read or is refused by the loader.
public struct SiteImportError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// True when the file could not be read at all (rather than read and refused).
    public var unreadable: Bool
    public var description: String { message }
}

/// Reads the site files given to `sextant serve`.
public enum SiteImport {
    /// Reads site files, and the `*.json` files of directories (sorted by name).
    /// - Parameter paths: files or directories.
    /// - Throws: `SiteImportError` naming the file.
    public static func read(_ paths: [String]) throws(SiteImportError) -> [SiteFile] {
        var files: [SiteFile] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw SiteImportError(message: "\(path): no such file or directory", unreadable: true)
            }
            if isDirectory.boolValue {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
                    .filter { $0.hasSuffix(".json") }.sorted()
                for name in names { files.append(try readFile((path as NSString).appendingPathComponent(name))) }
            } else {
                files.append(try readFile(path))
            }
        }
        return files
    }

    static func readFile(_ path: String) throws(SiteImportError) -> SiteFile {
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(path, limit: BoundedFile.siteLimit, kind: "a site file") } catch {
            throw SiteImportError(message: "\(error)", unreadable: error.unreadable)
        }
        do {
            return SiteFile(site: try Site(json: bytes, source: path), json: bytes, path: path)
        } catch {
            throw SiteImportError(message: "\(error)", unreadable: false)
        }
    }
}
