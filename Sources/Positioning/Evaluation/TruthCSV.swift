import Numerics

/// The ground-truth CSV: `t_ns,site,tag,x,y,z` (Unix nanoseconds, ids, site-frame metres).
///
/// Pure functions over text handed in; reading and writing files is the caller's business.
public enum TruthCSV {
    /// The header line, written first and tolerated (skipped) as the first line on reading.
    public static let header = "t_ns,site,tag,x,y,z"

    /// Parses truth samples from CSV text. Blank lines and a leading header are skipped; `\r\n` is accepted.
    /// - Parameter text: the whole file.
    /// - Throws: `TruthCSVError` naming the 1-based line and the field at fault.
    public static func parse(_ text: String) throws(TruthCSVError) -> [TruthSample] {
        var copy = text
        let result: Result<[TruthSample], TruthCSVError> = copy.withUTF8 { buffer in
            do throws(TruthCSVError) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses truth samples from UTF-8 bytes; see `parse(_:)` for the rules.
    public static func parse(bytes: [UInt8]) throws(TruthCSVError) -> [TruthSample] {
        let result: Result<[TruthSample], TruthCSVError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(TruthCSVError) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    static func parse(_ text: UnsafeBufferPointer<UInt8>) throws(TruthCSVError) -> [TruthSample] {
        var samples: [TruthSample] = []
        var lineNumber = 0, start = 0, sawContent = false
        // The last site and tag seen, to reuse their Strings instead of decoding one per line.
        var lastSite = (bytes: [UInt8](), string: ""), lastTag = (bytes: [UInt8](), string: "")
        var fieldBounds = [(Int, Int)](repeating: (0, 0), count: 6)
        while start < text.count {
            lineNumber += 1
            var end = start
            while end < text.count && text[end] != UInt8(ascii: "\n") { end += 1 }
            let next = end + 1
            var lineEnd = end
            while lineEnd > start && (text[lineEnd - 1] == UInt8(ascii: "\r") || text[lineEnd - 1] == 0x20) { lineEnd -= 1 }
            var lineStart = start
            while lineStart < lineEnd && text[lineStart] == 0x20 { lineStart += 1 }
            defer { start = next }
            if lineStart == lineEnd { continue }
            let line = UnsafeBufferPointer(rebasing: text[lineStart..<lineEnd])
            if !sawContent {
                sawContent = true
                if line.starts(with: "t_ns".utf8) { continue }
            }
            var count = 0, fieldStart = 0
            for i in 0...line.count where i == line.count || line[i] == UInt8(ascii: ",") {
                if count < 6 { fieldBounds[count] = trimmed(line, fieldStart, i) }
                count += 1
                fieldStart = i + 1
            }
            guard count == 6 else { throw .fieldCount(line: lineNumber, found: count) }
            func field(_ k: Int) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: line[fieldBounds[k].0..<fieldBounds[k].1])
            }
            let names = ["t_ns", "site", "tag", "x", "y", "z"]
            for k in 0..<6 where field(k).isEmpty { throw .emptyField(line: lineNumber, field: names[k]) }
            guard let t = DecimalText.parseInt64(field(0)) else {
                throw .invalidTime(line: lineNumber, text: String(decoding: field(0), as: UTF8.self))
            }
            var xyz = [0.0, 0.0, 0.0]
            for k in 0..<3 {
                guard let v = DecimalText.parseDouble(field(3 + k)) else {
                    throw .invalidNumber(line: lineNumber, field: names[3 + k],
                                         text: String(decoding: field(3 + k), as: UTF8.self))
                }
                xyz[k] = v
            }
            samples.append(TruthSample(site: intern(field(1), &lastSite), tag: intern(field(2), &lastTag),
                                       time: t, position: Vec3(xyz[0], xyz[1], xyz[2])))
        }
        return samples
    }

    private static func trimmed(_ line: UnsafeBufferPointer<UInt8>, _ a: Int, _ b: Int) -> (Int, Int) {
        var a = a, b = b
        while a < b && line[a] == 0x20 { a += 1 }
        while b > a && line[b - 1] == 0x20 { b -= 1 }
        return (a, b)
    }

    private static func intern(_ bytes: UnsafeBufferPointer<UInt8>, _ cache: inout (bytes: [UInt8], string: String)) -> String {
        if !cache.bytes.elementsEqual(bytes) {
            cache = (Array(bytes), String(decoding: bytes, as: UTF8.self))
        }
        return cache.string
    }

    /// Appends one CSV line (with its `\n`) for `sample` to `out`.
    /// - Parameters:
    ///   - sample: the truth sample.
    ///   - decimals: digits after the point for x, y, z (default 4: 0.1 mm).
    ///   - out: the byte buffer to append to.
    public static func appendLine(_ sample: TruthSample, decimals: Int = 4, to out: inout [UInt8]) {
        DecimalText.appendInt(sample.time, to: &out)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: sample.site.utf8)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: sample.tag.utf8)
        for v in [sample.position.x, sample.position.y, sample.position.z] {
            out.append(UInt8(ascii: ","))
            DecimalText.appendFixed(v, decimals: decimals, to: &out)
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// The whole CSV text: header line, then one line per sample in the given order.
    /// - Parameters:
    ///   - samples: the truth samples.
    ///   - decimals: digits after the point for x, y, z (default 4).
    public static func format(_ samples: [TruthSample], decimals: Int = 4) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(48 * (samples.count + 1))
        out.append(contentsOf: header.utf8)
        out.append(UInt8(ascii: "\n"))
        for s in samples { appendLine(s, decimals: decimals, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Why a truth CSV line was rejected; `line` is 1-based.
public enum TruthCSVError: Error, Equatable, CustomStringConvertible {
    /// The line does not have exactly six comma-separated fields.
    case fieldCount(line: Int, found: Int)
    /// A field is empty.
    case emptyField(line: Int, field: String)
    /// `t_ns` is not a decimal integer of nanoseconds (or overflows 64 bits).
    case invalidTime(line: Int, text: String)
    /// x, y or z is not a finite decimal number.
    case invalidNumber(line: Int, field: String, text: String)

    /// The 1-based line number of the error.
    public var line: Int {
        switch self {
        case .fieldCount(let l, _), .emptyField(let l, _), .invalidTime(let l, _), .invalidNumber(let l, _, _): l
        }
    }

    /// A message a user can act on, starting with the line number.
    public var description: String {
        switch self {
        case .fieldCount(let l, let n): "line \(l): expected 6 fields (t_ns,site,tag,x,y,z), found \(n)"
        case .emptyField(let l, let f): "line \(l): field '\(f)' is empty"
        case .invalidTime(let l, let t): "line \(l): field 't_ns' is not an integer of nanoseconds (\(t))"
        case .invalidNumber(let l, let f, let t): "line \(l): field '\(f)' is not a finite number (\(t))"
        }
    }
}
