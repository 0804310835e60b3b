import Positioning
import Wire

/// How a feed channel encodes outputs: line protocol (the TCP feed), or one JSON object per line
/// (`OutputJSON`, for HTTP streams).
public enum FeedFormat: String, Sendable, Hashable {
    case lineProtocol = "lp"
    case json

    /// Appends one output and its newline. - Returns: false, nothing appended, when not representable.
    @inline(__always)
    func append(_ output: Output, to buffer: inout [UInt8]) -> Bool {
        switch self {
        case .lineProtocol:
            return OutputEncoder.append(output, to: &buffer)
        case .json:
            guard OutputJSON.append(output, to: &buffer) else { return false }
            buffer.append(10)
            return true
        }
    }
}
