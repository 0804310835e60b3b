/// Placeholder until the command is written: refuses to run rather than pretend.
enum StatusCommand {
    static func run(_ argv: [String]) throws {
        throw CommandError(message: "sextant: this command is not available in this build yet", code: .failure)
    }
}
