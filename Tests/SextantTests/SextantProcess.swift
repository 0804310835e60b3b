import Foundation

/// The `sextant` executable built beside the test bundle, run as a child process; its standard error is
/// read line by line, each line awaited with `poll` for at most `lineTimeout`.
final class SextantProcess {
    struct Timeout: Error, CustomStringConvertible {
        let seconds: Double
        var description: String { "no line on standard error within \(seconds) s" }
    }

    /// The package's root directory (for its `Sites/`).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// How long a log line may take: the sanitizers slow start-up (`SEXTANT_TEST_TIME_SCALE`, as the
    /// service tests).
    static let lineTimeout = 30 * (ProcessInfo.processInfo.environment["SEXTANT_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1)

    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var pending: [UInt8] = []
    private var errorsEnded = false

    var pid: Int32 { process.processIdentifier }

    /// Starts `sextant ARGUMENTS` from the directory of the running test executable.
    /// - Parameter removing: an environment variable the child does not inherit.
    init(_ arguments: [String], removing: String? = nil) throws {
        let tests = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.executableURL = tests.deletingLastPathComponent().appendingPathComponent("sextant")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        if let removing { environment[removing] = nil }
        process.environment = environment
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Standard output until the child closes it. Standard error is read meanwhile (its lines stay
    /// for `nextErrorLine`), so a child that logs more than a pipe holds does not block.
    func readStandardOutputToEnd() throws -> String {
        let outFD = output.fileHandleForReading.fileDescriptor
        let errFD = errors.fileHandleForReading.fileDescriptor
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var outputEnded = false
        while !outputEnded {
            var fds = [pollfd(fd: outFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: errorsEnded ? -1 : errFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, Int32(Self.lineTimeout * 1000))
            if ready == 0 { throw Timeout(seconds: Self.lineTimeout) }
            if ready < 0 { if errno == EINTR { continue }; throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            for (index, fd) in [outFD, errFD].enumerated() where fds[index].revents != 0 {
                let n = read(fd, &chunk, chunk.count)
                if n < 0 { if errno == EINTR { continue }; throw POSIXError(.init(rawValue: errno) ?? .EIO) }
                if fd == outFD {
                    if n == 0 { outputEnded = true } else { text += chunk[..<n] }
                } else {
                    if n == 0 { errorsEnded = true } else { pending += chunk[..<n] }
                }
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The next line of standard error without its newline; nil once the child closed it.
    func nextErrorLine() throws -> String? {
        let fd = errors.fileHandleForReading.fileDescriptor
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            if errorsEnded { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(Self.lineTimeout * 1000))
            if ready == 0 { throw Timeout(seconds: Self.lineTimeout) }
            if ready < 0 { if errno == EINTR { continue }; throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n < 0 { if errno == EINTR { continue }; throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            if n == 0 { errorsEnded = true } else { pending += chunk[..<n] }
        }
    }

    /// Waits for the child to exit; its exit status.
    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGTERM, then waits for the exit.
    func terminate() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
