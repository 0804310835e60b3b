/// A syntax error in one line-protocol line.
public struct LineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `tag 'site' has an empty value`.
    public var message: String
    /// 1-based byte column where the problem was found.
    public var column: Int

    /// - Parameters:
    ///   - message: what is wrong, phrased for the user.
    ///   - column: 1-based byte column.
    public init(_ message: String, column: Int) {
        self.message = message
        self.column = column
    }

    public var description: String { "\(message) (column \(column))" }
}

/// A decoded field value of any line-protocol type.
public enum FieldValue: Sendable, Equatable {
    /// `1.5`, `-3`, `1e-3`.
    case float(Double)
    /// `12i`.
    case integer(Int64)
    /// `12u`.
    case unsigned(UInt64)
    /// `"text"`, unescaped.
    case string(String)
    /// `t`, `true`, `F`, `FALSE`, …
    case boolean(Bool)

    /// The value as a Double for the numeric types (float, integer, unsigned); nil otherwise.
    public var doubleValue: Double? {
        switch self {
        case .float(let v): v
        case .integer(let v): Double(v)
        case .unsigned(let v): Double(v)
        case .string, .boolean: nil
        }
    }

    /// The value of a string field; nil for other types.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

/// One parsed line-protocol line with every part decoded to Swift values: the general-purpose view for
/// code that reads lines other than ingest (e.g. `position` lines when evaluating a run).
/// The ingest decoder does not go through this type; it scans bytes directly.
public struct ParsedLine: Sendable, Equatable {
    /// One `key=value` tag, unescaped.
    public struct Tag: Sendable, Equatable {
        public var key: String
        public var value: String
        public init(key: String, value: String) { self.key = key; self.value = value }
    }

    /// One `key=value` field, unescaped and typed.
    public struct Field: Sendable, Equatable {
        public var key: String
        public var value: FieldValue
        public init(key: String, value: FieldValue) { self.key = key; self.value = value }
    }

    public var measurement: String
    /// Tags in line order.
    public var tags: [Tag]
    /// Fields in line order (at least one on a parsed line).
    public var fields: [Field]
    /// Unix nanoseconds, if the line has a timestamp.
    public var timestamp: Int64?

    public init(measurement: String, tags: [Tag], fields: [Field], timestamp: Int64?) {
        self.measurement = measurement; self.tags = tags; self.fields = fields; self.timestamp = timestamp
    }

    /// The value of the first tag named `key`.
    public func tag(_ key: String) -> String? {
        tags.first { $0.key == key }?.value
    }

    /// The value of the last field named `key` (a repeated field overrides, as in InfluxDB).
    public func field(_ key: String) -> FieldValue? {
        fields.last { $0.key == key }?.value
    }

    /// Parses one line (a trailing `\n`/`\r` is tolerated).
    /// - Parameter line: the bytes of the line.
    /// - Returns: nil for a blank line or a `#` comment.
    /// - Throws: `LineError` with the reason and column when the line is malformed.
    public static func parse(_ line: UnsafeRawBufferPointer) throws(LineError) -> ParsedLine? {
        var collector = Collector(bytes: line)
        switch try LineScanner.scan(line, into: &collector) {
        case .skip:
            return nil
        case .line(let measurement, let timestamp):
            return ParsedLine(measurement: line.string(measurement), tags: collector.tags,
                              fields: collector.fields, timestamp: timestamp)
        }
    }

    /// Parses one line held in an array of bytes. See `parse(_:)` for an `UnsafeRawBufferPointer`.
    public static func parse(_ line: [UInt8]) throws(LineError) -> ParsedLine? {
        let result = line.withUnsafeBytes { bytes in
            Result { () throws(LineError) in try parse(bytes) }
        }
        return try result.get()
    }

    /// Parses one line held in a String. See `parse(_:)` for an `UnsafeRawBufferPointer`.
    public static func parse(_ line: String) throws(LineError) -> ParsedLine? {
        var line = line
        let result = line.withUTF8 { bytes in
            Result { () throws(LineError) in try parse(UnsafeRawBufferPointer(bytes)) }
        }
        return try result.get()
    }

    /// Turns scanned spans into Strings.
    private struct Collector: LineVisitor {
        let bytes: UnsafeRawBufferPointer
        var tags: [Tag] = []
        var fields: [Field] = []

        mutating func tag(key: ByteSpan, value: ByteSpan) {
            tags.append(Tag(key: bytes.string(key), value: bytes.string(value)))
        }

        mutating func field(key: ByteSpan, value: RawFieldValue) {
            let decoded: FieldValue = switch value {
            case .float(let v): .float(v)
            case .integer(let v): .integer(v)
            case .unsigned(let v): .unsigned(v)
            case .boolean(let v): .boolean(v)
            case .string(let span): .string(bytes.string(span))
            }
            fields.append(Field(key: bytes.string(key), value: decoded))
        }
    }
}
