#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Structured log lines, one per event: `ts=2025-01-31T12:00:00.123Z level=info msg="…" key=value …`.
///
/// Values with spaces, quotes or `=` are quoted. The default sink is standard error; each line is
/// written with one `write(2)`, so lines from several threads do not interleave.
public struct Logger: Sendable {
    /// Severity, lowest first.
    public enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case debug, info, warning, error
        /// Logs nothing (tests).
        case off
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public var description: String { ["debug", "info", "warn", "error", "off"][rawValue] }
    }

    /// Lines below this level are skipped.
    public var level: Level
    private let sink: @Sendable (String) -> Void

    /// - Parameters:
    ///   - level: the lowest level written (default info).
    ///   - sink: receives each line with its `\n`; default: standard error.
    public init(level: Level = .info, sink: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.sink = sink ?? { line in
            var line = line
            line.withUTF8 { b in _ = Glibc.write(STDERR_FILENO, b.baseAddress, b.count) }
        }
    }

    /// A logger that writes nothing.
    public static let silent = Logger(level: .off)

    /// Writes one line.
    /// - Parameters:
    ///   - level: the severity.
    ///   - message: what happened, for a person.
    ///   - fields: machine-readable `key=value` pairs, in order.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, any CustomStringConvertible> = [:]) {
        guard level >= self.level, self.level != .off else { return }
        var line = "ts=\(Self.timestamp()) level=\(level) msg=\(Self.quoted(message, always: true))"
        for (k, v) in fields { line += " \(k)=\(Self.quoted(v.description, always: false))" }
        sink(line + "\n")
    }

    public func info(_ m: String, _ f: KeyValuePairs<String, any CustomStringConvertible> = [:]) { log(.info, m, f) }
    public func warning(_ m: String, _ f: KeyValuePairs<String, any CustomStringConvertible> = [:]) { log(.warning, m, f) }
    public func error(_ m: String, _ f: KeyValuePairs<String, any CustomStringConvertible> = [:]) { log(.error, m, f) }
    public func debug(_ m: String, _ f: KeyValuePairs<String, any CustomStringConvertible> = [:]) { log(.debug, m, f) }

    static func quoted(_ s: String, always: Bool) -> String {
        let needs = always || s.isEmpty || s.unicodeScalars.contains {
            $0 == " " || $0 == "\"" || $0 == "=" || $0.value < 0x20 || $0.value == 0x7f
        }
        guard needs else { return s }
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where c.value < 0x20 || c.value == 0x7f:
                // Control bytes (ESC, NUL…) from a client are written as `\xHH`, never raw to a terminal.
                let hex = String(c.value, radix: 16)
                out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }

    /// UTC, millisecond precision, RFC 3339.
    static func timestamp() -> String {
        let ns = ServiceClock.wallNow()
        var seconds = time_t(ns / 1_000_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let ms = Int(ns / 1_000_000 % 1000)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let millis = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
    }
}
