#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Standard output's end of a command: what `print` buffered is flushed and any error of the writes
/// (a full disk, `/dev/full`, a closed pipe) ends the command with exit 74 and a message, instead of
/// exit 0 with the output lost. Every command's output goes through it (`main.swift`).
enum StandardOutput {
    /// Flushes standard output and reports a write error of this command.
    /// - Throws: `CommandError` with `.ioError` when a write to standard output failed.
    static func finish(command: String) throws {
        let flushed = fflush(stdout) == 0
        let code = errno
        guard !flushed || ferror(stdout) != 0 else { return }
        let reason = flushed ? "a write failed" : String(cString: strerror(code))
        clearerr(stdout)
        throw CommandError(message: "sextant \(command): cannot write standard output: \(reason)", code: .ioError)
    }
}
