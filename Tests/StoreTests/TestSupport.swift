import Foundation
@testable import Store

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("sextant-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Path of a file named `name` inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a temporary directory that is removed afterwards, even if `body` throws.
func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) throws -> T) throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try body(directory)
}

extension Database {
    /// The first column of the first row of `sql`, in its stored type (`.null` when no rows).
    func scalar(_ sql: String) throws -> DatabaseValue {
        let statement = try prepare(sql: sql)
        return try statement.step() ? statement.value(at: 0) : .null
    }
}
