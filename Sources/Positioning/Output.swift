public import Numerics

/// A tag's estimated state, as emitted on a `position` line.
public struct PositionEstimate: Sendable, Equatable {
    public var site: String
    public var tag: String
    /// Position in the site frame, metres (z is the tag height on 2-D sites).
    public var position: Vec3
    /// Velocity, m/s.
    public var velocity: Vec3
    /// Position covariance (m²): xx, xy, yy, and for 3-D sites xz, yz, zz (zero on 2-D sites).
    public var covXX: Double, covXY: Double, covYY: Double
    public var covXZ: Double, covYZ: Double, covZZ: Double
    /// Number of distinct anchors that contributed within the recent window.
    public var anchors: Int
    public var motion: MotionState
    public var time: Nanoseconds
    /// On a 3-D site whose anchors lie in one plane, the mirror image of `position` through that plane
    /// (site frame, metres) while the engine cannot tell on which side of the plane the tag is; nil
    /// when the side is decided (by the site's bounds, its `tagHeightRange`, or the track's history).
    /// The covariance then covers both points: its variance along the plane's normal includes the
    /// squared distance of `position` from the plane, so `mirror` lies within 2 σ.
    public var mirror: Vec3?

    public init(site: String, tag: String, position: Vec3, velocity: Vec3,
                covXX: Double, covXY: Double, covYY: Double, covXZ: Double = 0, covYZ: Double = 0,
                covZZ: Double = 0, anchors: Int, motion: MotionState, time: Nanoseconds) {
        self.site = site; self.tag = tag; self.position = position; self.velocity = velocity
        self.covXX = covXX; self.covXY = covXY; self.covYY = covYY
        self.covXZ = covXZ; self.covYZ = covYZ; self.covZZ = covZZ
        self.anchors = anchors; self.motion = motion; self.time = time
        mirror = nil
    }

    /// The 1-σ horizontal radius in metres: `sqrt((σx² + σy²) / 2)`, the radius of the circle with the
    /// same mean variance as the horizontal error ellipse.
    public var sigma: Double { (0.5 * (covXX + covYY)).squareRoot() }
}

/// One output line of the engine.
public enum Output: Sendable, Equatable {
    case position(PositionEstimate)
    /// "Distance only": the tag is measured but cannot be placed. `azimuth` in the anchor frame, radians.
    case proximity(site: String, tag: String, anchor: String, distance: Double, azimuth: Double?, time: Nanoseconds)
    case removed(site: String, tag: String, reason: RemovalReason, time: Nanoseconds)
    /// The tag entered or left a zone of the site (see `EngineConfig.zoneSigmaK` for the hysteresis).
    case zone(site: String, tag: String, zone: String, event: ZoneEvent, time: Nanoseconds)
}

/// A zone transition of a tag.
public enum ZoneEvent: String, Sendable, Equatable, CaseIterable {
    /// The tag is now inside the zone.
    case enter
    /// The tag is no longer inside the zone (it left, or it was removed while inside).
    case exit
}
