internal import CLibPQ

/// The rows of one statement (`PGresult*`), in binary form; its one owner, cleared in `deinit`.
///
/// Columns are read by their PostgreSQL binary layout: `bigint` 8 bytes, `integer` 4 bytes,
/// `double precision` IEEE 754, all big-endian; `text` and `bytea` their bytes. Not `Sendable`:
/// read it where the query ran.
final class PostgresResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    /// The number of rows.
    var count: Int { Int(PQntuples(handle)) }

    /// True when the value is `NULL`.
    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) == 1 }

    /// A `bigint` (or `integer`, by its length) column; 0 for `NULL`.
    func int64(_ row: Int, _ column: Int) -> Int64 {
        let length = PQgetlength(handle, Int32(row), Int32(column))
        guard let value = PQgetvalue(handle, Int32(row), Int32(column)), length > 0 else { return 0 }
        var result: Int64 = 0
        for i in 0..<Int(length) { result = result << 8 | Int64(UInt8(bitPattern: value[i])) }
        return length == 4 ? Int64(Int32(truncatingIfNeeded: result)) : result
    }

    /// A `double precision` column; NaN for `NULL`.
    func double(_ row: Int, _ column: Int) -> Double {
        guard !isNull(row, column) else { return .nan }
        return Double(bitPattern: UInt64(bitPattern: int64(row, column)))
    }

    /// A `text` or `bytea` column's bytes; nil for `NULL`.
    func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        guard !isNull(row, column), let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return value.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// A `text` column; nil for `NULL`.
    func string(_ row: Int, _ column: Int) -> String? {
        bytes(row, column).map { String(decoding: $0, as: UTF8.self) }
    }
}
