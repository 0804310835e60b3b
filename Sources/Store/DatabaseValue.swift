/// One SQLite value, in the five storage classes SQLite has.
public enum DatabaseValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double. SQLite stores NaN as `NULL`.
    case real(Double)
    /// UTF-8 text; may contain any Unicode, including U+0000.
    case text(String)
    /// Raw bytes.
    case blob([UInt8])
}
