public import Numerics

/// Time as Unix nanoseconds. Estimation code never reads a clock: time is always passed in.
public typealias Nanoseconds = Int64

/// A direction measured by an anchor, in the anchor frame (+x boresight, +y left, +z up).
public enum Direction: Sendable, Equatable {
    /// `azimuth = atan2(y, x)`, `elevation = atan2(z, hypot(x, y))`, radians; either may be missing.
    case angles(azimuth: Double?, elevation: Double?)
    /// A unit vector.
    case vector(Vec3)

    /// The full unit vector when both angles (or the vector) are known.
    public var unitVector: Vec3? {
        switch self {
        case .vector(let v): return v
        case .angles(let az?, let el?):
            return Vec3(cos(el) * cos(az), cos(el) * sin(az), sin(el))
        case .angles: return nil
        }
    }
}

/// One measurement by an anchor of a tag: a distance, a direction, or both (as in Nearby Interaction,
/// either may be missing).
public struct Ranging: Sendable, Equatable {
    public var site: String
    public var anchor: String
    public var tag: String
    /// The technology; nil means the anchor's first (default) technology.
    public var technology: Technology?
    /// Distance in metres, as measured (bias not yet removed).
    public var distance: Double?
    /// 1-σ of the distance in metres, if the gateway reports one.
    public var std: Double?
    public var direction: Direction?
    public var time: Nanoseconds

    public init(site: String, anchor: String, tag: String, technology: Technology? = nil, distance: Double?,
                std: Double? = nil, direction: Direction? = nil, time: Nanoseconds) {
        self.site = site; self.anchor = anchor; self.tag = tag; self.technology = technology
        self.distance = distance; self.std = std; self.direction = direction; self.time = time
    }
}

/// What a tag is doing, from a motion hint.
public enum MotionState: String, Sendable, Equatable, CaseIterable {
    case stationary, moving, unknown
}

/// Why an anchor stopped measuring a tag, or a tag was dropped.
public enum RemovalReason: String, Sendable, Equatable, CaseIterable {
    case timeout, peerEnded
}

/// Lifecycle of an anchor's ranging session.
public enum SessionState: String, Sendable, Equatable, CaseIterable {
    case suspended, resumed, invalidated
}

/// One decoded ingest line.
public enum Event: Sendable, Equatable {
    case ranging(Ranging)
    case motion(site: String, tag: String, state: MotionState, time: Nanoseconds)
    case removed(site: String, anchor: String, tag: String, reason: RemovalReason, time: Nanoseconds)
    /// `tag` nil: the anchor's sessions with all tags.
    case session(site: String, anchor: String, tag: String?, state: SessionState, time: Nanoseconds)

    public var site: String {
        switch self {
        case .ranging(let r): r.site
        case .motion(let s, _, _, _), .removed(let s, _, _, _, _), .session(let s, _, _, _, _): s
        }
    }

    public var time: Nanoseconds {
        switch self {
        case .ranging(let r): r.time
        case .motion(_, _, _, let t), .removed(_, _, _, _, let t), .session(_, _, _, _, let t): t
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
