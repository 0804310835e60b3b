public import Numerics

/// A ranging technology an anchor supports.
public enum Technology: String, Sendable, Hashable, CaseIterable {
    /// Ultra-wideband two-way ranging: about 0.1 m noise, optionally with angle of arrival.
    case uwb
    /// Bluetooth Channel Sounding: cheaper, several times noisier than UWB.
    case cs
    /// Bluetooth 5.1 angle of arrival (u-blox, Silicon Labs, Quuppa-class locators): azimuth and
    /// elevation, no distance. A distance on an `aoa` line is not used.
    case aoa

    /// Default 1-σ range noise in metres when neither the line nor the site gives one.
    public var defaultRangeStd: Double {
        switch self {
        case .uwb: 0.10
        case .cs: 0.45
        case .aoa: 2.0    // not used: `aoa` lines give no distance
        }
    }

    /// Default 1-σ angle noise in radians for a direction measurement.
    public var defaultAngleStd: Double {
        switch self {
        case .uwb: 0.09   // about 5°
        case .cs: 0.26    // about 15°
        case .aoa: 0.087  // 5°: the random error locator vendors state in line of sight; their
                          // persistent per-locator error is learned (`BiasLearner`'s angle slots)
        }
    }
}

/// An anchor's orientation: the rotation `R = Rz(yaw) · Ry(pitch) · Rx(roll)` that maps anchor-frame
/// vectors (+x boresight, +y left, +z up) into the site frame. Angles in radians.
public struct Orientation: Sendable, Equatable {
    public var yaw: Double
    public var pitch: Double
    public var roll: Double
    /// The rotation matrix, anchor frame to site frame.
    public let rotation: Mat3

    /// - Parameters: yaw, pitch, roll in radians (right-handed about the site z, y, x axes).
    public init(yaw: Double, pitch: Double, roll: Double) {
        self.yaw = yaw; self.pitch = pitch; self.roll = roll
        rotation = Mat3.rotationZ(yaw) * Mat3.rotationY(pitch) * Mat3.rotationX(roll)
    }

    /// Maps a unit vector from the anchor frame into the site frame.
    @inlinable public func toSite(_ v: Vec3) -> Vec3 { rotation * v }
    /// Maps a vector from the site frame into the anchor frame.
    @inlinable public func toAnchor(_ v: Vec3) -> Vec3 { rotation.transposed * v }
}

/// A fixed anchor of a site.
public struct Anchor: Sendable, Equatable {
    /// Identifier, unique within the site.
    public var id: String
    /// Position in the site frame, metres.
    public var position: Vec3
    /// Technologies this anchor ranges with; the first is the default for lines without `tech`.
    public var technologies: [Technology]
    /// Orientation, needed to use directions; nil when the anchor has no known orientation.
    public var orientation: Orientation?
    /// Full cone angle around the boresight in radians within which directions are valid; nil: any.
    public var fieldOfView: Double?
    /// Range bias in metres, subtracted from measured distances (measured = true + bias).
    public var rangeBias: Double
    /// Calibrated 1-σ range noise in metres, overriding the technology default; nil: default.
    public var rangeStd: Double?

    public init(id: String, position: Vec3, technologies: [Technology], orientation: Orientation? = nil,
                fieldOfView: Double? = nil, rangeBias: Double = 0, rangeStd: Double? = nil) {
        self.id = id; self.position = position; self.technologies = technologies
        self.orientation = orientation; self.fieldOfView = fieldOfView
        self.rangeBias = rangeBias; self.rangeStd = rangeStd
    }

    /// The 1-σ of a range a line (`std`) or a site file (`rangeStd`) may give, metres: 0.1 mm to 1 km.
    /// Below, a tag's ranges would outweigh everything else (1e-300 kept it from ever being placed);
    /// above, a range says nothing.
    public static let rangeStdLimits: ClosedRange<Double> = 1e-4...1e3

    /// The 1-σ of a range, metres, as the engine weighs it: the larger of the line's `std` and the
    /// anchor's calibrated `rangeStd`, either alone when the other is missing, else the technology's
    /// default. Static, so that a caller holding `site.anchors[a]` passes the field without a copy.
    @inlinable
    public static func rangeStd(line: Double?, calibrated: Double?, technology: Technology) -> Double {
        switch (line, calibrated) {
        case (let a?, let b?): max(a, b)
        case (let a?, nil): a
        case (nil, let b?): b
        case (nil, nil): technology.defaultRangeStd
        }
    }

    /// True when a site-frame direction from the anchor (any length) lies inside its field of view.
    /// Anchors without orientation accept no direction; anchors without a field of view accept any.
    public func seesDirection(_ siteVector: Vec3) -> Bool {
        guard let orientation else { return false }
        guard let fov = fieldOfView else { return true }
        guard let u = siteVector.normalized else { return false }
        let boresight = orientation.toSite(Vec3(1, 0, 0))
        let cosAngle = max(-1, min(1, u.dot(boresight)))
        return acos(cosAngle) <= fov / 2 + 1e-12
    }
}

/// A named zone: a polygon on the floor (site x, y), optionally limited in height for 3-D sites.
public struct Zone: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Vertices (x, y) in metres, in order; the polygon is closed implicitly.
    public var polygon: [(Double, Double)]
    /// Optional height range (metres) for 3-D sites.
    public var minZ: Double?
    public var maxZ: Double?

    public init(id: String, name: String, polygon: [(Double, Double)], minZ: Double? = nil, maxZ: Double? = nil) {
        self.id = id; self.name = name; self.polygon = polygon; self.minZ = minZ; self.maxZ = maxZ
    }

    public static func == (a: Zone, b: Zone) -> Bool {
        a.id == b.id && a.name == b.name && a.minZ == b.minZ && a.maxZ == b.maxZ
            && a.polygon.count == b.polygon.count
            && zip(a.polygon, b.polygon).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    /// True when the point (x, y) lies inside the polygon (even-odd rule).
    public func contains(x: Double, y: Double) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in 0..<polygon.count {
            let (xi, yi) = polygon[i], (xj, yj) = polygon[j]
            if (yi > y) != (yj > y), x < (xj - xi) * (y - yi) / (yj - yi) + xi { inside.toggle() }
            j = i
        }
        return inside
    }
}

/// An axis-aligned box in the site frame, metres.
public struct Bounds: Sendable, Equatable {
    public var min: Vec3
    public var max: Vec3
    public init(min: Vec3, max: Vec3) { self.min = min; self.max = max }

    /// True when `p` lies inside the box grown by `margin` metres on every side.
    public func contains(_ p: Vec3, margin: Double = 0) -> Bool {
        p.x >= min.x - margin && p.x <= max.x + margin && p.y >= min.y - margin && p.y <= max.y + margin
            && p.z >= min.z - margin && p.z <= max.z + margin
    }
}

/// A site map: anchors and zones in one site frame (x, y on the floor, z up, metres).
public struct Site: Sendable, Equatable {
    public var id: String
    public var name: String
    /// 2: positions in x, y at the fixed `tagHeight`; 3: x, y, z.
    public var dimensions: Int
    /// Tag height in metres for 2-D sites.
    public var tagHeight: Double?
    /// For 3-D sites, the heights (metres) between which tags are carried, if known: the engine holds
    /// its positions within them (see `EngineConfig.tagHeightRangeStd`). Nil: anywhere in `bounds`.
    public var tagHeightRange: ClosedRange<Double>?
    public var bounds: Bounds
    public var anchors: [Anchor]
    public var zones: [Zone]
    /// Anchor index by id.
    public let anchorIndex: [String: Int]

    public init(id: String, name: String, dimensions: Int, tagHeight: Double?, bounds: Bounds,
                anchors: [Anchor], zones: [Zone], tagHeightRange: ClosedRange<Double>? = nil) {
        self.id = id; self.name = name; self.dimensions = dimensions; self.tagHeight = tagHeight
        self.tagHeightRange = tagHeightRange
        self.bounds = bounds; self.anchors = anchors; self.zones = zones
        var index: [String: Int] = [:]
        for (i, a) in anchors.enumerated() where index[a.id] == nil { index[a.id] = i }
        anchorIndex = index
    }

    /// The anchor with this id, if any.
    public func anchor(_ id: String) -> Anchor? { anchorIndex[id].map { anchors[$0] } }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
