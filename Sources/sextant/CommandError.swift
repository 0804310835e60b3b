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
