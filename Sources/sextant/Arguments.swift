import Foundation

/// Exit codes in the BSD `sysexits` convention.
enum ExitCode: Int32 {
    case ok = 0
    case failure = 1
    /// Command-line usage error.
    case usage = 64
    /// Bad input data.
    case dataError = 65
    /// An input file is missing or unreadable.
    case noInput = 66
    /// An output file cannot be created.
    case cantCreate = 73
    /// Writing failed (standard output full or closed).
    case ioError = 74
}

/// An error that ends a command with a message and an exit code.
struct CommandError: Error, CustomStringConvertible {
    var message: String
    var code: ExitCode
    var description: String { message }

    static func usage(_ m: String) -> CommandError { CommandError(message: m, code: .usage) }
    static func data(_ m: String) -> CommandError { CommandError(message: m, code: .dataError) }
}

/// A minimal `--flag value` parser with validation before run, in the spirit of swift-argument-parser.
struct Arguments {
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    private(set) var positional: [String] = []
    let command: String

    /// - Parameters:
    ///   - options: flags that take a value (without the leading `--`).
    ///   - switches: flags without a value.
    init(_ args: [String], command: String, options: Set<String>, switches: Set<String>) throws(CommandError) {
        self.command = command
        var i = 0
        while i < args.count {
            let a = args[i]
            if a == "--help" || a == "-h" { flags.insert("help"); i += 1; continue }
            if a.hasPrefix("--") {
                var name = String(a.dropFirst(2))
                var inline: String? = nil
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if switches.contains(name) {
                    guard inline == nil else { throw .usage("\(command): --\(name) takes no value") }
                    flags.insert(name)
                } else if options.contains(name) {
                    if let inline { values[name, default: []].append(inline) } else {
                        guard i + 1 < args.count else { throw .usage("\(command): --\(name) needs a value") }
                        i += 1
                        values[name, default: []].append(args[i])
                    }
                } else {
                    throw .usage("\(command): unknown option --\(name) (see 'sextant \(command) --help')")
                }
            } else if a == "-" || !a.hasPrefix("-") {
                positional.append(a)
            } else {
                throw .usage("\(command): unknown option \(a) (see 'sextant \(command) --help')")
            }
            i += 1
        }
    }

    var wantsHelp: Bool { flags.contains("help") }
    func flag(_ name: String) -> Bool { flags.contains(name) }
    func string(_ name: String) -> String? { values[name]?.last }
    func strings(_ name: String) -> [String] { values[name] ?? [] }

    func required(_ name: String) throws(CommandError) -> String {
        guard let v = string(name) else { throw .usage("\(command): --\(name) is required (see 'sextant \(command) --help')") }
        return v
    }

    /// A number option within a closed range.
    func double(_ name: String, default def: Double, in range: ClosedRange<Double>) throws(CommandError) -> Double {
        guard let s = string(name) else { return def }
        guard let v = Double(s), v.isFinite else { throw .usage("\(command): --\(name) must be a number, got '\(s)'") }
        guard range.contains(v) else {
            throw .usage("\(command): --\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(s)")
        }
        return v
    }

    func int(_ name: String, default def: Int, in range: ClosedRange<Int>) throws(CommandError) -> Int {
        guard let s = string(name) else { return def }
        guard let v = Int(s) else { throw .usage("\(command): --\(name) must be an integer, got '\(s)'") }
        guard range.contains(v) else {
            throw .usage("\(command): --\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(s)")
        }
        return v
    }
}
