/// JSON text pieces shared by every writer of JSON (site files, GeoJSON exports, the outputs as JSON).
public enum JSONText {
    /// `s` as a JSON string literal: quotes and backslashes escaped, `\n`, `\r`, `\t` as short
    /// escapes, other control characters and DEL as `\u00XX`.
    public static func quoted(_ s: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count + 2)
        appendQuoted(s, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `s` as a JSON string literal (the escapes of `quoted`); everything else as its UTF-8 bytes.
    public static func appendQuoted(_ s: String, to buffer: inout [UInt8]) {
        let quote: UInt8 = 0x22, backslash: UInt8 = 0x5C
        buffer.append(quote)
        var s = s
        s.withUTF8 { bytes in
            var start = 0
            for (i, b) in bytes.enumerated() where b < 0x20 || b == quote || b == backslash || b == 0x7F {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                switch b {
                case quote: buffer.append(contentsOf: [backslash, quote])
                case backslash: buffer.append(contentsOf: [backslash, backslash])
                case 0x0A: buffer.append(contentsOf: [backslash, 0x6E])  // \n
                case 0x0D: buffer.append(contentsOf: [backslash, 0x72])  // \r
                case 0x09: buffer.append(contentsOf: [backslash, 0x74])  // \t
                default:
                    buffer.append(contentsOf: [backslash, 0x75, 0x30, 0x30, hexDigit(b >> 4), hexDigit(b & 0xF)])  // \u00XX
                }
                start = i + 1
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        buffer.append(quote)
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }
}
