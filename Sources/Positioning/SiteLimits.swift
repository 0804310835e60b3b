/// The limits of what a site file may hold, so that every computation on a site (the engine, survey
/// coverage, the pictures) stays within numbers a `Double` and an `Int` can carry.
public enum SiteLimits {
    /// The largest magnitude of a coordinate (bounds, anchor positions, zone points and heights,
    /// `tagHeight`, `tagHeightRange`), metres: 1,000 km, a site of any building or campus.
    public static let maxCoordinate = 1e6
    /// The largest magnitude of an anchor's `rangeBias`, metres.
    public static let maxRangeBias = 1e3

    /// True when `text` holds a control character: C0 (NUL, tab, CR, LF, ESC…), DEL or C1. Ids and
    /// names with one are refused: they would reach the feed, the log and the terminal raw.
    public static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
