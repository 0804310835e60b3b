import Foundation
import Positioning

/// Where the bench finds its inputs: the package root (for `Sites/`) and the shared datasets next to it.
enum Files {
    /// The package root: the current directory when it holds Package.swift, else the one this file was
    /// compiled from (`Benchmarks/sextant-bench/Files.swift` → three levels up).
    static let packageRoot: URL = {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if FileManager.default.fileExists(atPath: cwd.appendingPathComponent("Package.swift").path) { return cwd }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }()

    /// The LIAS planar dataset folder (`../shared/datasets/lias-planar` from the package root), if present.
    static var liasFolder: URL? {
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["SEXTANT_LIAS"] { candidates.append(URL(fileURLWithPath: env)) }
        candidates.append(packageRoot.appendingPathComponent("../shared/datasets/lias-planar").standardized)
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        candidates.append(cwd.appendingPathComponent("../shared/datasets/lias-planar").standardized)
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("site.json").path) }
    }

    /// Loads a site file.
    static func site(_ url: URL) throws -> Site {
        let bytes = try [UInt8](Data(contentsOf: url))
        return try Site(json: bytes, source: url.lastPathComponent)
    }

    /// A site from `Sites/` under the package root, or nil (with a message) when it cannot be read.
    static func bundledSite(_ name: String) -> Site? {
        let url = packageRoot.appendingPathComponent("Sites").appendingPathComponent(name)
        do { return try site(url) } catch {
            print("  (cannot read \(url.path): \(error))")
            return nil
        }
    }

    /// The bytes of a file, decompressed with /bin/gzip when its name ends in `.gz`.
    static func read(_ url: URL) throws -> [UInt8] {
        guard url.pathExtension == "gz" else { return try [UInt8](Data(contentsOf: url)) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/gzip")
        p.arguments = ["-dc", url.path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()   // read before waiting: no pipe deadlock
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw BenchError.failed("gzip -dc \(url.path) exited with \(p.terminationStatus)")
        }
        return [UInt8](data)
    }
}

/// A failure the bench reports and goes on from.
enum BenchError: Error, CustomStringConvertible {
    case failed(String)
    var description: String { switch self { case .failed(let m): m } }
}
