public import Numerics

/// Where a tag really was at one instant: ground truth from the simulator or from motion capture.
public struct TruthSample: Sendable, Equatable {
    /// Site id.
    public var site: String
    /// Tag id.
    public var tag: String
    /// Unix nanoseconds.
    public var time: Nanoseconds
    /// Position in the site frame, metres.
    public var position: Vec3

    /// - Parameters: site and tag ids, time in Unix nanoseconds, position in the site frame (metres).
    public init(site: String, tag: String, time: Nanoseconds, position: Vec3) {
        self.site = site; self.tag = tag; self.time = time; self.position = position
    }
}
