/// Counts rejections by snake_case key. Starts with every `RejectReason` key (plus any `extraKeys`, e.g.
/// the engine's `unknown_site`, `unknown_anchor`) at zero so all counter names exist from the start;
/// other layers count their own reasons with `record(key:)`.
public struct RejectionCounter: Sendable, Equatable {
    /// Count per key.
    public private(set) var counts: [String: Int]

    /// - Parameter extraKeys: further keys to report at zero before they are first seen.
    public init(extraKeys: [String] = []) {
        counts = [:]
        for key in RejectReason.allKeys + extraKeys { counts[key] = 0 }
    }

    /// Counts one rejection under its reason's key.
    public mutating func record(_ reason: RejectReason) {
        record(key: reason.key)
    }

    /// Counts one rejection under `key` (any snake_case name).
    public mutating func record(key: String) {
        counts[key, default: 0] += 1
        total += 1
    }

    /// The count for `key` (0 when never seen).
    public subscript(key: String) -> Int { counts[key] ?? 0 }

    /// All rejections counted (kept as they are counted: transports read it after every message).
    public private(set) var total = 0
}
