import Wire

/// A `#precision UNIT` line on an ingest connection: the unit of that connection's later timestamps
/// (`ns`, `us`, `ms` or `s`, as InfluxDB's `precision`). To other readers of line protocol it is a comment.
enum PrecisionCommand: Equatable {
    case set(TimestampPrecision)
    /// The line names no known unit (its text, for the reply).
    case unknown(String)

    /// The command in `line` (`#precision ms`, a trailing `\r\n` or spaces allowed), or nil when the
    /// line is another comment.
    init?(_ line: UnsafeRawBufferPointer) {
        let prefix = Array("#precision".utf8)
        guard line.count > prefix.count, line.prefix(prefix.count).elementsEqual(prefix),
              line[prefix.count] == UInt8(ascii: " ") else { return nil }
        let text = String(decoding: line[(prefix.count + 1)...], as: UTF8.self)
            .trimmingCharacters(in: [" ", "\r", "\n", "\r\n"])
        if let p = TimestampPrecision(rawValue: text) { self = .set(p) } else { self = .unknown(String(text.prefix(40))) }
    }
}

private extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
