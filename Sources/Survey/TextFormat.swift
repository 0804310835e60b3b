/// Number formatting for figures and summaries, without Foundation's `String(format:)`.
public enum TextFormat {
    /// `v` with exactly `decimals` digits after the point (half away from zero); "-" when not finite.
    /// - Parameters:
    ///   - v: the value.
    ///   - decimals: digits after the point, 0…9.
    public static func fixed(_ v: Double, _ decimals: Int) -> String {
        guard v.isFinite else { return "-" }
        let d = max(0, min(9, decimals))
        var scale = 1.0
        for _ in 0..<d { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        guard scaled < 9.0e15 else { return "\(v)" }
        let n = UInt64(scaled)
        let p = UInt64(scale)
        var s = String(n / p)
        if d > 0 {
            let frac = String(n % p)
            s += "." + String(repeating: "0", count: d - frac.count) + frac
        }
        return (v < 0 && n != 0 ? "-" : "") + s
    }

    /// A percentage of a share in 0…1 with one decimal, e.g. `0.4567` → "45.7".
    public static func percent(_ share: Double) -> String { fixed(100 * share, 1) }

    /// `s` padded with spaces to `width` characters (on the left when `right` is true).
    public static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        guard s.count < width else { return s }
        let fill = String(repeating: " ", count: width - s.count)
        return right ? fill + s : s + fill
    }
}
