/// JSON text pieces shared by every writer of JSON (site files, GeoJSON exports).
public enum JSONText {
    /// `s` as a JSON string literal: quotes and backslashes escaped, `\n`, `\r`, `\t` as short
    /// escapes, other control characters as `\u00XX`.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
