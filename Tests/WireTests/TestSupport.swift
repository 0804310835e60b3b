import Testing
@testable import Wire


/// Parses a line that must be a data line.
func parsed(_ line: String) throws -> ParsedLine {
    let result = try ParsedLine.parse(line)
    return try #require(result)
}

/// The error a malformed line throws, or nil when it parses.
func lineError(_ line: String) -> LineError? {
    do {
        _ = try ParsedLine.parse(line)
        return nil
    } catch {
        return error
    }
}

/// Everything a splitter reports, as comparable values.
enum Piece: Equatable, CustomStringConvertible {
    case line(Int, String)
    case tooLong(Int)

    init(_ split: SplitLine) {
        switch split {
        case .line(let n, let bytes): self = .line(n, String(decoding: bytes, as: UTF8.self))
        case .tooLong(let n): self = .tooLong(n)
        }
    }

    var description: String {
        switch self {
        case .line(let n, let s): "\(n):\(s.debugDescription)"
        case .tooLong(let n): "\(n):tooLong"
        }
    }
}

/// Feeds `bytes` cut at `cuts` (sorted offsets) and finishes; returns what came out.
func split(_ bytes: [UInt8], at cuts: [Int], maxLineLength: Int = 65536) -> [Piece] {
    var splitter = LineSplitter(maxLineLength: maxLineLength)
    var out: [Piece] = []
    var start = 0
    for cut in cuts + [bytes.count] {
        splitter.feed(Array(bytes[start..<cut])) { out.append(Piece($0)) }
        start = cut
    }
    splitter.finish { out.append(Piece($0)) }
    return out
}
