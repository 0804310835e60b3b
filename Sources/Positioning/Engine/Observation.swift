public import Numerics

/// One scalar observation of a tag's position, prepared for estimation: what was measured, its noise,
/// and how to predict it from a position. The same model serves multilateration and the filter.
public struct Observation: Sendable, Equatable {
    /// What kind of quantity was observed.
    public enum Kind: Sendable, Equatable {
        /// Distance from the anchor, metres (bias already removed).
        case range
        /// Azimuth in the anchor frame, radians: `atan2(y, x)`.
        case azimuth
        /// Elevation in the anchor frame, radians: `atan2(z, hypot(x, y))`.
        case elevation
    }

    public var kind: Kind
    /// Index of the anchor in its site.
    public var anchor: Int
    /// Anchor position, site frame, metres.
    public var anchorPosition: Vec3
    /// Rotation site frame → anchor frame (only used for angles).
    public var toAnchor: Mat3
    /// The measured value (metres or radians).
    public var value: Double
    /// 1-σ noise of the value (metres or radians).
    public var std: Double
    /// Time of the measurement.
    public var time: Nanoseconds
    /// The learned range bias already subtracted from `value` (metres), so that the raw residual can
    /// be recovered for bias learning.
    public var removedBias: Double = 0

    public init(kind: Kind, anchor: Int, anchorPosition: Vec3, toAnchor: Mat3 = .identity, value: Double,
                std: Double, time: Nanoseconds) {
        self.kind = kind; self.anchor = anchor; self.anchorPosition = anchorPosition
        self.toAnchor = toAnchor; self.value = value; self.std = std; self.time = time
    }

    /// Nearer its anchor than this (metres), a range's gradient is undefined: the model is singular.
    static let minRange = 1e-6
    /// Nearer the anchor's vertical axis (its frame) than this squared horizontal distance (m²), an
    /// angle's gradient is undefined.
    static let minHorizontalSquared = 1e-12

    /// The predicted value at position `p` and its gradient with respect to `p` (site frame).
    /// Returns nil where the model is singular (the tag on the anchor, or straight above it for azimuth).
    public func predict(at p: Vec3) -> (value: Double, gradient: Vec3)? {
        let d = p - anchorPosition
        switch kind {
        case .range:
            let r = d.norm
            guard r > Self.minRange else { return nil }
            return (r, (1 / r) * d)
        case .azimuth:
            let v = toAnchor * d
            let h2 = v.x * v.x + v.y * v.y
            guard h2 > Self.minHorizontalSquared else { return nil }
            let g = Vec3(-v.y / h2, v.x / h2, 0)
            return (atan2(v.y, v.x), toAnchor.transposed * g)
        case .elevation:
            let v = toAnchor * d
            let h2 = v.x * v.x + v.y * v.y
            let r2 = h2 + v.z * v.z
            guard h2 > Self.minHorizontalSquared else { return nil }
            let h = h2.squareRoot()
            let g = Vec3(-v.x * v.z / (r2 * h), -v.y * v.z / (r2 * h), h / r2)
            return (atan2(v.z, h), toAnchor.transposed * g)
        }
    }

    /// The innovation `value − predicted`, wrapped to (−π, π] for angles.
    public func residual(_ predicted: Double) -> Double {
        let r = value - predicted
        guard kind != .range else { return r }
        return Observation.wrapAngle(r)
    }

    /// Wraps an angle to (−π, π].
    public static func wrapAngle(_ a: Double) -> Double {
        var r = a.truncatingRemainder(dividingBy: 2 * .pi)
        if r > .pi { r -= 2 * .pi } else if r <= -.pi { r += 2 * .pi }
        return r
    }
}

/// The scalar observations of one ranging line (a range, an azimuth, an elevation: at most three),
/// stored inline so that a line allocates nothing.
///
/// They share the anchor, its position, its rotation and the time, which are kept once; only the
/// kind, value, σ and removed bias are kept per observation. An `Observation` (144 bytes, most of
/// it the rotation) is built where it is read, so a line copies no whole observations through
/// `memcpy`.
struct LineObservations {
    private struct Item {
        var kind: Observation.Kind
        var value: Double
        var std: Double
        var removedBias: Double
    }

    private var items = InlineArray<3, Item>(repeating: Item(kind: .range, value: 0, std: 1, removedBias: 0))
    private(set) var count = 0
    /// Index of the anchor in its site.
    let anchor: Int
    /// Anchor position, site frame, metres.
    let anchorPosition: Vec3
    /// Rotation site frame → anchor frame of the angles (a range's observation keeps the identity,
    /// as an observation made with the default rotation does).
    var toAnchor = Mat3(rows: Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1))
    /// Time of the measurements.
    let time: Nanoseconds

    init(anchor: Int, anchorPosition: Vec3, time: Nanoseconds) {
        self.anchor = anchor; self.anchorPosition = anchorPosition; self.time = time
    }

    /// Appends an observation of this line's anchor and time.
    mutating func append(_ kind: Observation.Kind, value: Double, std: Double, removedBias: Double = 0) {
        items[count] = Item(kind: kind, value: value, std: std, removedBias: removedBias)
        count += 1
    }

    /// Multiplies the σ of every observation by `factor`.
    mutating func scaleStd(by factor: Double) {
        for i in 0..<count { items[i].std *= factor }
    }

    /// The kind, value, σ and removed bias of observation `i`, without building an `Observation`
    /// (read at once: each access to the inline items is checked).
    @inline(__always)
    func item(_ i: Int) -> (kind: Observation.Kind, value: Double, std: Double, removedBias: Double) {
        let item = items[i]
        return (item.kind, item.value, item.std, item.removedBias)
    }

    /// Observation `i`.
    subscript(i: Int) -> Observation {
        let item = items[i]
        var o = Observation(kind: item.kind, anchor: anchor, anchorPosition: anchorPosition,
                            toAnchor: item.kind == .range ? .identity : toAnchor, value: item.value,
                            std: item.std, time: time)
        o.removedBias = item.removedBias
        return o
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
