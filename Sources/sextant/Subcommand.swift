/// A subcommand of `sextant`, or of `sextant survey`.
struct Subcommand {
    let name: String
    let summary: String
    let run: ([String]) throws -> Void
}

extension [Subcommand] {
    /// One line per subcommand for a help: its name padded to `column`, then its summary.
    func listing(column: Int) -> String {
        map { "  " + $0.name.padding(toLength: column, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n")
    }

    /// The subcommand named `word`.
    /// - Parameter unknown: the start of the message for an unknown word (`sextant: unknown command`).
    /// - Throws: a usage error naming the closest subcommand when one is close, then `help`.
    func named(_ word: String, unknown: String, help: String) throws(CommandError) -> Subcommand {
        if let found = first(where: { $0.name == word }) { return found }
        let close = closestName(to: word, among: map(\.name))
        throw .usage("\(unknown) '\(word)'" + (close.map { " (did you mean '\($0)'?)" } ?? "") + "\n\n" + help)
    }
}
