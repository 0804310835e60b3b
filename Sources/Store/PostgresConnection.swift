internal import CLibPQ
internal import Foundation

/// One libpq connection (`PGconn*`), its one owner: opened in `init`, finished in `deinit`.
///
/// Threading invariant: a connection is confined to one thread at a time (libpq connections are not
/// thread-safe). `PostgresHistoryStore` confines its connection to a serial queue and the history
/// writer's to its own thread; every call blocks on the network, so none runs on the cooperative
/// pool. It is `@unchecked Sendable` only so that it can be handed to that queue or thread once.
final class PostgresConnection: @unchecked Sendable {
    /// The one owner of the `PGconn*`.
    private let connection: OpaquePointer

    /// Connects to `url` (a libpq URI such as `postgres://user@127.0.0.1:5432/sextant`, or a
    /// `key=value` string). Throws a transient `PostgresError` if the server cannot be reached.
    /// - Parameter parameters: libpq connection keywords that override the URL's (for example
    ///   `keepalives_idle`), passed with `PQconnectdbParams`.
    init(url: String, parameters: [(String, String)] = []) throws {
        guard let handle = parameters.isEmpty ? PQconnectdb(url) : Self.connect(url, parameters) else {
            throw PostgresError(sqlState: nil, message: "out of memory", isConnectionFailure: true)
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.message(of: handle)
            PQfinish(handle)
            throw PostgresError(sqlState: nil, message: "cannot connect: \(message)", isConnectionFailure: true)
        }
        connection = handle
        // The server's NOTICEs ("relation already exists, skipping") would go to stderr: drop them.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(connection) }

    /// `PQconnectdbParams` with `url` expanded as `dbname` and `parameters` after it (later keywords win).
    private static func connect(_ url: String, _ parameters: [(String, String)]) -> OpaquePointer? {
        let pairs = [("dbname", url)] + parameters
        let keys = pairs.map { strdup($0.0) }, values = pairs.map { strdup($0.1) }
        defer { for p in keys + values { free(p) } }
        var k = keys.map { UnsafePointer($0) } + [nil], v = values.map { UnsafePointer($0) } + [nil]
        return k.withUnsafeMutableBufferPointer { kp in
            v.withUnsafeMutableBufferPointer { vp in PQconnectdbParams(kp.baseAddress, vp.baseAddress, 1) }
        }
    }

    /// False once the connection is lost (the server restarted, the network failed); a new
    /// connection is then needed.
    var isOpen: Bool { PQstatus(connection) == CONNECTION_OK }

    /// Runs one or more `;`-separated statements without parameters, discarding rows.
    func execute(_ sql: String) throws {
        _ = try check(PQexec(connection, sql), sql: sql)
    }

    /// Runs one statement with `parameters` (`$1` …, in PostgreSQL's text form; nil is `NULL`) and
    /// returns its rows in binary form.
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for p in copies { free(p) } }
        let raw = copies.map { UnsafePointer($0) }
        let result = raw.withUnsafeBufferPointer { values in
            PQexecParams(connection, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 1)
        }
        return try check(result, sql: sql)
    }

    /// Runs one `INSERT`, `UPDATE` or `DELETE` with `parameters`. - Returns: the rows it changed.
    func command(_ sql: String, _ parameters: [String?]) throws -> Int {
        let result = try query(sql, parameters)
        return Int(String(cString: PQcmdTuples(result.handle))) ?? 0
    }

    /// Runs `sql` (a `COPY … FROM STDIN`) and sends `data` as its input in one go.
    /// - Returns: the rows copied.
    @discardableResult
    func copy(_ sql: String, data: [UInt8]) throws -> Int {
        try copy(sql) { send in send(data) }
    }

    /// Runs `sql` (a `COPY … FROM STDIN`) and sends its input as `produce` makes it: each call of
    /// `send` hands one chunk to the server, which inserts the rows of a chunk while `produce` is
    /// still encoding the next one (the client's encoding and the server's inserting overlap).
    /// If `produce` throws, the `COPY` is cancelled (nothing of it is inserted) and the error rethrown.
    /// - Parameter produce: writes the input, in order, through `send`; `send` takes the bytes of a
    ///   chunk (any size; libpq sends what it holds once it has 8 KiB) and may be called any number of times.
    /// - Returns: the rows copied.
    @discardableResult
    func copy(_ sql: String, produce: (_ send: ([UInt8]) -> Void) throws -> Void) throws -> Int {
        let start = PQexec(connection, sql)
        guard PQresultStatus(start) == PGRES_COPY_IN else { _ = try check(start, sql: sql); return 0 }
        PQclear(start)
        var sent = true
        let connection = self.connection
        let send = { (data: [UInt8]) in
            data.withUnsafeBufferPointer { bytes in
                var offset = 0
                while offset < bytes.count, sent {  // at most 1 MiB a call: libpq buffers what it is given
                    let n = min(Self.maxCopyCall, bytes.count - offset)
                    sent = bytes.baseAddress!.advanced(by: offset).withMemoryRebound(to: CChar.self, capacity: n) {
                        PQputCopyData(connection, $0, Int32(n)) == 1
                    }
                    offset += n
                }
            }
        }
        do {
            try produce(send)
        } catch {
            // An error message in PQputCopyEnd makes the server fail the COPY; its result is discarded.
            if PQputCopyEnd(connection, "cancelled by the client") == 1 {
                while let result = PQgetResult(connection) { PQclear(result) }
            }
            throw error
        }
        // After a failed send PQputCopyEnd reports the error; its result carries the reason.
        guard PQputCopyEnd(connection, nil) == 1 else { throw self.error(sql: sql) }
        let result = try check(PQgetResult(connection), sql: sql)
        while let extra = PQgetResult(connection) { PQclear(extra) }  // drain to the idle state
        return Int(String(cString: PQcmdTuples(result.handle))) ?? 0
    }

    /// The most bytes handed to one `PQputCopyData`.
    static let maxCopyCall = 1 << 20

    /// Wraps `result`, or throws its error (and drains any further results).
    private func check(_ result: OpaquePointer?, sql: String) throws -> PostgresResult {
        guard let result else { throw error(sql: sql) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return PostgresResult(result)
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let message = primary ?? String(cString: PQresultErrorMessage(result))
            PQclear(result)
            while let extra = PQgetResult(connection) { PQclear(extra) }
            throw PostgresError(sqlState: state.map(SQLState.init(rawValue:)), message: message, sql: sql,
                                isConnectionFailure: !isOpen)
        }
    }

    /// The connection's current error, for a call that returned no result.
    private func error(sql: String?) -> PostgresError {
        PostgresError(sqlState: nil, message: Self.message(of: connection), sql: sql, isConnectionFailure: !isOpen)
    }

    private static func message(of handle: OpaquePointer) -> String {
        // One line for the log: libpq's messages run over several lines with tabs.
        String(cString: PQerrorMessage(handle)).split(whereSeparator: { $0 == "\n" || $0 == "\t" })
            .map { $0.trimmingCharacters() }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}

extension String {
    /// Without leading and trailing spaces and newlines (libpq's messages end in a newline).
    func trimmingWhitespace() -> String {
        let bytes = Array(utf8)
        let isSpace = { (b: UInt8) in b == 32 || b == 10 || b == 13 || b == 9 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
