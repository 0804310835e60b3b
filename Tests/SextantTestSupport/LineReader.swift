import Foundation
public import Server
#if canImport(Glibc)
import Glibc
#endif

/// Reads lines from a client socket with timeouts.
public final class LineReader {
    public let socket: Socket
    private var buffer: [UInt8] = []
    public private(set) var closed = false

    public init(_ socket: Socket) {
        self.socket = socket
        socket.setReceiveTimeout(0.05)
    }

    /// Reads lines until `stop` returns true for a line, the peer closes, or `timeout` passes.
    public func lines(timeout: Double = 5, until stop: (String) -> Bool = { _ in false }) -> [String] {
        var out: [String] = []
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            while let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                out.append(line)
                if stop(line) { return out }
            }
            if closed { return out }
            guard let chunk = try? socket.read() else { closed = true; continue }
            if chunk.isEmpty {
                // An empty read is either the timeout (EAGAIN → []) or the end of stream; tell them apart.
                if isAtEnd() { closed = true }
                continue
            }
            buffer += chunk
        }
        return out
    }

    private func isAtEnd() -> Bool {
        var byte: UInt8 = 0
        let n = recv(socket.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n == 0
    }
}
