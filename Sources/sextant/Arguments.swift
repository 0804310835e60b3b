import Foundation
import Server

/// A command line parsed against a command's declared options: each value already read and checked by
/// its option, so a command runs only on valid options.
struct Arguments {
    /// The command's name, for messages (`history`, `survey bias`).
    let command: String
    /// The arguments that are not options, in order.
    private(set) var positional: [String] = []
    /// `-h` or `--help` was given.
    private(set) var wantsHelp = false
    private var values: [String: [any Sendable]] = [:]
    private var texts: [String: [String]] = [:]

    /// Parses `args` against `options`: `--name value`, `--name=value`, switches, `-` and operands.
    /// - Throws: a usage error naming the option and what its value must be, or the closest known option.
    init(_ args: [String], command: String, options: [OptionSpec]) throws(CommandError) {
        self.command = command
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var i = 0
        while i < args.count {
            let a = args[i]
            i += 1
            if a == "--help" || a == "-h" { wantsHelp = true; continue }
            guard a.hasPrefix("-"), a != "-" else { positional.append(a); continue }
            guard a.hasPrefix("--") else { throw Self.unknown(a, command: command, options: options) }
            var name = String(a.dropFirst(2))
            var inline: String? = nil
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = byName[name] else { throw Self.unknown("--" + name, command: command, options: options) }
            let text: String
            if option.placeholder == nil {
                guard inline == nil else { throw .usage("\(command): --\(name) takes no value") }
                text = ""
            } else if let inline {
                text = inline
            } else {
                guard i < args.count else { throw .usage("\(command): \(option.synopsis) needs a value") }
                text = args[i]
                i += 1
            }
            do { values[name, default: []].append(try option.read(text)) } catch {
                throw .usage("\(command): --\(name) \(error.message)")
            }
            texts[name, default: []].append(text)
        }
    }

    /// The option's value: the one given (every one, for a repeatable option), else its default.
    subscript<Value>(option: Option<Value>) -> Value { option.collect(values[option.spec.name] ?? []) }

    /// Whether the option was given on the command line.
    func given(_ option: OptionSpec) -> Bool { values[option.name] != nil }
    func given<Value>(_ option: Option<Value>) -> Bool { values[option.spec.name] != nil }

    /// The texts given for an option, in order (for `serve`'s settings).
    func texts(_ option: OptionSpec) -> [String] { texts[option.name] ?? [] }

    /// The value of a required option.
    func required<Value>(_ option: Option<Value?>) throws(CommandError) -> Value {
        guard let v = self[option] else {
            throw .usage("\(command): \(option.spec.synopsis) is required (see 'sextant \(command) --help')")
        }
        return v
    }

    /// Refuses operands for a command that takes none.
    func noOperands() throws(CommandError) {
        if let first = positional.first { throw .usage("\(command): unexpected argument '\(first)'") }
    }

    /// An unknown option, with the closest known one when it is close.
    private static func unknown(_ given: String, command: String, options: [OptionSpec]) -> CommandError {
        let name = given.drop { $0 == "-" }
        let closest = closestName(to: String(name), among: options.map(\.name))
        let hint = closest.map { " (did you mean --\($0)?)" } ?? ""
        return .usage("\(command): unknown option \(given)\(hint) (see 'sextant \(command) --help')")
    }
}

/// The known name closest to a mistyped one: within a few edits, or one a prefix of the other; nil
/// when none is close.
func closestName(to word: String, among names: [String]) -> String? {
    func near(_ known: String) -> Bool {
        editDistance(word, known) <= (word.count <= 3 ? 1 : max(2, word.count / 3))
            || min(word.count, known.count) >= 3 && (word.hasPrefix(known) || known.hasPrefix(word))
    }
    return names.filter(near).min { editDistance(word, $0) < editDistance(word, $1) }
}

/// The number of single-character insertions, deletions and substitutions that turn `a` into `b`.
func editDistance(_ a: some StringProtocol, _ b: some StringProtocol) -> Int {
    let b = [Character](b)
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
        var current = [i + 1]
        for (j, y) in b.enumerated() {
            current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
        }
        previous = current
    }
    return previous[b.count]
}
