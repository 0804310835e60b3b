public import Foundation

/// A fresh directory under the system temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    /// Creates the directory. - Parameter prefix: the start of its name, for a person who finds it.
    public init(prefix: String = "sextant-tests") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The directory's path.
    public var path: String { url.path }

    /// Path of a file named `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a temporary directory that is removed afterwards, even if `body` throws.
public func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) throws -> T) throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try body(directory)
}

/// The path of a temporary directory that does not exist yet (a service creates its data directory).
public func temporaryDirectory(prefix: String = "sextant-server-tests") -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
}
