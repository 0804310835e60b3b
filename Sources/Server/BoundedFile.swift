#if canImport(Glibc)
import Glibc
#endif

/// Why a small file (a configuration, a site map, a token) could not be read.
public struct BoundedFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path as given.
    public var path: String
    /// What went wrong, e.g. `is larger than 1048576 bytes; not a configuration file`.
    public var message: String
    /// True when the file is missing or unreadable (not when it is too large).
    public var unreadable: Bool
    public var description: String { "\(path): \(message)" }
}

/// Reads small files whole, refusing one larger than a limit, so that a path such as `/dev/zero`, a
/// FIFO or a multi-gigabyte file given as a configuration ends with an error rather than exhausting
/// memory.
public enum BoundedFile {
    /// The largest configuration file, bytes (1 MiB).
    public static let configLimit = 1 << 20
    /// The largest site file, bytes (64 MiB: a site of many thousands of anchors and zones).
    public static let siteLimit = 64 << 20

    /// The bytes of the file at `path`.
    /// - Parameters:
    ///   - path: a file path.
    ///   - limit: the most bytes accepted.
    ///   - kind: what the file should be, for the message (`a configuration file`).
    /// - Throws: `BoundedFileError` when the file cannot be opened or read, or holds more than `limit`.
    public static func read(_ path: String, limit: Int, kind: String) throws(BoundedFileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw BoundedFileError(path: path, message: "cannot be read: \(String(cString: strerror(errno)))", unreadable: true)
        }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw BoundedFileError(path: path, message: "cannot be read: \(String(cString: strerror(errno)))",
                                       unreadable: true)
            }
            if n == 0 { return out }
            guard out.count + n <= limit else {
                throw BoundedFileError(path: path, message: "is larger than \(limit) bytes; not \(kind)", unreadable: false)
            }
            out.append(contentsOf: chunk[0..<n])
        }
    }
}
