import Foundation
import SextantTestSupport
@testable import Store

/// The shared test helpers' temporary directory (`SextantTestSupport`), under this target's names.
typealias TemporaryDirectory = SextantTestSupport.TemporaryDirectory

/// Runs `body` with a temporary directory that is removed afterwards, even if `body` throws.
func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) throws -> T) throws -> T {
    try SextantTestSupport.withTemporaryDirectory(body)
}

extension Database {
    /// The first column of the first row of `sql`, in its stored type (`.null` when no rows).
    func scalar(_ sql: String) throws -> DatabaseValue {
        let statement = try prepare(sql: sql)
        return try statement.step() ? statement.value(at: 0) : .null
    }
}
