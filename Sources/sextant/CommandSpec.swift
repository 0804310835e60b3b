/// A command's declaration: what the help says before its options, and its options. The help's OPTIONS
/// block and the parser both come from the one list of options.
struct CommandSpec {
    /// The command's name as typed after `sextant` (`history`, `survey bias`).
    let name: String
    /// The help above the options: the usage lines and what the command does.
    let about: String
    /// The title of the options block.
    var optionsTitle = "OPTIONS:"
    /// Every option, in the order the help lists them.
    let options: [OptionSpec]

    init(_ name: String, about: String, optionsTitle: String = "OPTIONS:", options: [OptionSpec]) {
        self.name = name; self.about = about; self.optionsTitle = optionsTitle; self.options = options
    }

    /// Parses a command line against the options.
    func parse(_ argv: [String]) throws(CommandError) -> Arguments {
        try Arguments(argv, command: name, options: options)
    }

    /// The help: `about`, then one entry per option with its default (and config key), then `--help`.
    var help: String {
        about + "\n\n" + optionsTitle + "\n" + Self.optionLines(options + [Self.helpOption]).joined(separator: "\n")
    }

    /// `-h, --help`, listed last by every command.
    static let helpOption = OptionSpec(name: "help", placeholder: nil, help: "show this help", defaultText: nil,
                                       repeatable: false, read: { _ in true })

    /// The help's width, in characters.
    static let width = 100
    /// The widest `--name PLACEHOLDER` column; a longer one puts its help two spaces after it.
    static let widestColumn = 26

    /// One entry per option: `  --name VALUE   help (default D, key K)`, wrapped under the help column.
    static func optionLines(_ options: [OptionSpec]) -> [String] {
        func left(_ o: OptionSpec) -> String { o.name == "help" ? "-h, --help" : o.synopsis }
        let column = min(widestColumn, (options.map { left($0).count }.max() ?? 0) + 2) + 2
        return options.map { o in
            var notes: [String] = []
            if let d = o.defaultText { notes.append("default " + d) }
            if let k = o.configKey { notes.append("key " + k) }
            if o.repeatable { notes.append("repeatable") }
            let text = o.help + (notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")")
            var head = "  " + left(o)
            head += head.count + 2 <= column ? String(repeating: " ", count: column - head.count) : "  "
            return wrap(text, first: head, indent: column)
        }
    }

    /// Words filled into lines of at most `width`, the first after `first`, the others after `indent` spaces.
    static func wrap(_ text: String, first: String, indent: Int) -> String {
        var lines: [String] = []
        var line = first
        var empty = true
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !empty, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
