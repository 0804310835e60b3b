/// Degree/radian conversion for site files, written so that writing and reading back is bit-exact.
enum SiteFileAngle {
    /// The one conversion the reader uses: degrees in the file to radians in memory.
    static func radians(fromDegrees d: Double) -> Double { d * .pi / 180 }

    /// A degree value that `radians(fromDegrees:)` maps back to exactly `r`, as short as possible:
    /// first rounded to 0…15 decimals (so 45° is written "45", not "45.00000000000001"), then the
    /// plain conversion and its neighbours a few ulps away; the plain conversion when none is exact
    /// (possible only for radians that no degree value produces, i.e. not read from a file).
    static func degrees(fromRadians r: Double) -> Double {
        guard r.isFinite else { return r }
        let plain = r * 180 / .pi
        var scale = 1.0
        for _ in 0...15 {
            let candidate = (plain * scale).rounded() / scale
            if radians(fromDegrees: candidate) == r { return candidate }
            scale *= 10
        }
        var up = plain, down = plain
        for _ in 0..<16 {
            if radians(fromDegrees: up) == r { return up }
            if radians(fromDegrees: down) == r { return down }
            up = up.nextUp; down = down.nextDown
        }
        return plain
    }
}
