import Foundation

/// Reads a file (or standard input for `-`) in large chunks with `read(2)`, retrying `EINTR`.
/// - Parameters:
///   - path: a file path, or `-` for standard input.
///   - body: called with each chunk; the bytes are valid only during the call.
func readChunks(_ path: String, chunkSize: Int = 1 << 20,
                _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    let fd: Int32 = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
    guard fd >= 0 else {
        throw CommandError(message: "cannot open '\(path)': \(String(cString: strerror(errno)))", code: .noInput)
    }
    defer { if fd != STDIN_FILENO { close(fd) } }
    var buffer = [UInt8](repeating: 0, count: chunkSize)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, chunkSize) }
        if n < 0 {
            if errno == EINTR { continue }
            throw CommandError(message: "cannot read '\(path)': \(String(cString: strerror(errno)))", code: .noInput)
        }
        if n == 0 { return }
        try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
}

/// Reads a small file whole (a site map, a token), refusing one over `limit` bytes (`BoundedFile`).
func readSmallFile(_ path: String, limit: Int, kind: String) throws -> [UInt8] {
    do { return try BoundedFile.read(path, limit: limit, kind: kind) } catch {
        throw CommandError(message: "\(error)", code: error.unreadable ? .noInput : .dataError)
    }
}

/// Reads a whole file into memory.
func readFile(_ path: String) throws -> [UInt8] {
    var out: [UInt8] = []
    try readChunks(path) { out.append(contentsOf: $0) }
    return out
}

/// A buffered writer to a file or standard output (`-`), flushing in large writes.
final class OutputSink {
    private let fd: Int32
    private let path: String
    private(set) var buffer: [UInt8] = []
    private let flushThreshold = 1 << 20

    init(_ path: String) throws {
        self.path = path
        if path == "-" {
            fd = STDOUT_FILENO
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else {
                throw CommandError(message: "cannot create '\(path)': \(String(cString: strerror(errno)))",
                                   code: .cantCreate)
            }
        }
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    deinit {
        try? flush()
        if fd != STDOUT_FILENO { close(fd) }
    }

    /// Appends bytes, flushing when the buffer is large.
    func write(_ body: (inout [UInt8]) -> Void) throws {
        body(&buffer)
        if buffer.count >= flushThreshold { try flush() }
    }

    func write(_ s: String) throws { try write { $0.append(contentsOf: s.utf8) } }

    /// Writes everything buffered, retrying `EINTR` and short writes.
    func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CommandError(message: "cannot write '\(path)': \(String(cString: strerror(errno)))",
                                   code: .cantCreate)
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Loads and validates a site file.
func loadSite(_ path: String) throws -> Site {
    let bytes = try readSmallFile(path, limit: BoundedFile.siteLimit, kind: "a site file")
    do {
        return try Site(json: bytes, source: path)
    } catch {
        throw CommandError.data("\(error)")
    }
}

import Positioning
import Server
