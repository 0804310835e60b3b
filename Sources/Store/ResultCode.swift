internal import CSQLite

/// An SQLite primary result code, matched by name (`error.resultCode == .full`) instead of by number.
///
/// Modelled on GRDB's `ResultCode`. Only the primary code (the low byte) is kept: extended codes
/// refine it (`SQLITE_IOERR_WRITE` is an `ioError`).
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The primary code, 0 … 255.
    public let rawValue: Int32

    /// The primary code of `rawValue`, which may be an extended code.
    public init(rawValue: Int32) { self.rawValue = rawValue & 0xFF }

    /// `SQLITE_ERROR`: an SQL error or a missing database.
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    /// `SQLITE_BUSY`: another connection held the write lock past the busy timeout.
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    /// `SQLITE_LOCKED`: a table is locked by this connection's other statement.
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    /// `SQLITE_NOMEM`: an allocation failed.
    public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
    /// `SQLITE_READONLY`: the file cannot be written now.
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    /// `SQLITE_FULL`: the disk (or the file's size limit) is full.
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    /// `SQLITE_CANTOPEN`: the file cannot be opened.
    public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    /// `SQLITE_PROTOCOL`: a locking race in WAL recovery.
    public static let lockProtocol = ResultCode(rawValue: SQLITE_PROTOCOL)
    /// `SQLITE_CONSTRAINT`: a unique, foreign-key, not-null or check constraint failed.
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    /// `SQLITE_MISUSE`: the API was used wrongly (a bug in the caller).
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)

    /// True for the codes whose cause may go away (a full disk freed, an I/O error passed, a lock
    /// released, a file that can be opened later): a write that failed with one is worth retrying.
    public var isTransient: Bool {
        switch self {
        case .busy, .locked, .noMemory, .readOnly, .ioError, .full, .cannotOpen, .lockProtocol: true
        default: false
        }
    }

    /// SQLite's English name for the code, for example `database or disk is full`.
    public var description: String { String(cString: sqlite3_errstr(rawValue)) }
}
