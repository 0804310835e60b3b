public import Numerics
public import Positioning

/// One measured distance between two anchors, metres (the measuring anchor's `rangeBias` removed).
public struct AnchorRange: Sendable, Equatable {
    /// The measuring anchor's id.
    public var from: String
    /// The measured anchor's id (the `tag` of the ranging line).
    public var to: String
    /// Distance in metres.
    public var distance: Double
    /// 1-σ noise of the distance in metres.
    public var std: Double

    public init(from: String, to: String, distance: Double, std: Double) {
        self.from = from; self.to = to; self.distance = distance; self.std = std
    }
}

/// Why anchor self-positioning cannot be solved; every message names what to fix.
public enum CalibrationError: Error, Equatable, CustomStringConvertible {
    /// Fewer reference anchors than the frame needs.
    case tooFewFixed(have: Int, need: Int)
    /// A reference anchor id is not in the site.
    case unknownFixedAnchor(String)
    /// The reference anchors are (nearly) collinear in plan view and cannot define the frame.
    case degenerateFixed([String])
    /// No usable anchor-to-anchor range at all.
    case noRanges
    /// An anchor is ranged to fewer distinct other anchors than its position needs.
    case tooFewRanges(anchor: String, have: Int, need: Int)
    /// The range graph falls apart: anchors in different components cannot be placed relative to each other.
    case disconnected(components: [[String]])
    /// The ranges do not determine an anchor's position (e.g. all its peers on one line).
    case undetermined(anchor: String)
    /// The least-squares solution did not converge.
    case didNotConverge

    public var description: String {
        switch self {
        case .tooFewFixed(let have, let need):
            "too few reference anchors: \(have) given, at least \(need) needed to define the frame (--fixed A,B,C)"
        case .unknownFixedAnchor(let id): "reference anchor '\(id)' is not in the site"
        case .degenerateFixed(let ids):
            "reference anchors \(ids.joined(separator: ", ")) lie on one line: they cannot define the frame"
        case .noRanges: "no anchor-to-anchor ranges (ranging lines whose tag is another anchor's id)"
        case .tooFewRanges(let anchor, let have, let need):
            "anchor '\(anchor)' is ranged to \(have) other anchor(s), needs at least \(need)"
        case .disconnected(let components):
            "the range graph is disconnected: " + components.map { "{" + $0.joined(separator: ", ") + "}" }
                .joined(separator: " | ") + "; add ranges between these groups"
        case .undetermined(let anchor):
            "the ranges do not determine the position of anchor '\(anchor)': it can move without changing a range "
                + "(its group hinged on one anchor, or its peers on one line); add ranges to it from other anchors"
        case .didNotConverge: "the least-squares solution did not converge"
        }
    }
}

/// One anchor after self-positioning.
public struct CalibratedAnchor: Sendable, Equatable {
    public var id: String
    /// Estimated position, site frame, metres.
    public var position: Vec3
    /// 1-σ of x, y, z in metres (zero for fixed coordinates), from `(JᵀWJ)⁻¹` scaled by the fit.
    public var std: Vec3
    /// 1-σ of x, y, z from the Cramér–Rao bound `(JᵀWJ)⁻¹` alone (stated noise, not scaled by the fit).
    public var boundStd: Vec3
    /// True for a reference anchor (kept where the site file puts it).
    public var fixed: Bool
    /// Distinct anchors it has ranges with.
    public var peers: Int
    /// Distance from its position in the site file, metres.
    public var moved: Double
}

/// The result of anchor self-positioning.
public struct CalibrationResult: Sendable {
    /// The site with the calibrated anchor positions.
    public var site: Site
    /// Calibrated anchors, in site order (anchors without ranges are left out).
    public var anchors: [CalibratedAnchor]
    /// Anchors without any range, left where the site file puts them.
    public var uncalibrated: [String]
    /// Anchor pairs with ranges, and ranges used.
    public var pairs: Int, ranges: Int
    /// RMS of the noise-normalised pair residuals at the solution (≈ 1 when the stated noise is right).
    public var normalizedRMS: Double
    /// Levenberg–Marquardt iterations.
    public var iterations: Int
}

/// Settings of anchor self-positioning.
public struct CalibrationOptions: Sendable, Equatable {
    /// Reference anchor ids; nil: the site's first three anchors.
    public var fixed: [String]?
    /// 2: solve x, y and keep each anchor's z from the site file (mounting heights are usually measured,
    /// and ranges between anchors at similar heights hardly observe z); 3: solve x, y, z.
    public var dimensions: Int = 2
    /// Maximum Levenberg–Marquardt iterations.
    public var maxIterations: Int = 200

    public init(fixed: [String]? = nil, dimensions: Int = 2) { self.fixed = fixed; self.dimensions = dimensions }
}
