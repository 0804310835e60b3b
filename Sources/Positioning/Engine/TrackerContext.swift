internal import Numerics

/// What every tag's update reads and never changes: the site, the tuning, the anchors' rotations.
///
/// A class, for speed only: every field is a `let`, so sharing it between copies of a `SiteTracker`
/// keeps value semantics, and a method call on it passes a reference where a struct this size
/// (256 bytes) was copied through `memcpy` for each call.
final class TrackerContext: Sendable {
    let site: Site
    let config: EngineConfig
    /// Rotation site → anchor frame of each anchor (identity where it has no orientation).
    let rotations: [Mat3]
    /// Per anchor, for the hot paths (no copies of `Anchor`): position, default technology and the
    /// range σ used to weigh its residuals in bias learning.
    let anchorPositions: [Vec3]
    let anchorTechnology: [Technology]
    let anchorRangeStd: [Double]
    let anchorTechnologies: [[Technology]]
    /// Per anchor, its technologies as bits (`bit(_:)`).
    let anchorTechnologyMasks: [UInt8]
    /// The anchors numbered by id like `site.anchors` (the first of duplicate ids wins, as in
    /// `site.anchorIndex`), for the per-line lookup.
    let anchorNumbers: NameIndex
    /// Zone membership rules of the site.
    let zoneHysteresis: ZoneHysteresis
    /// The NLOS hypotheses' tuning, from `config`.
    let nlosParameters: PairNLOS.Parameters
    /// `config`'s anchor window, output interval and bias round interval in nanoseconds, converted
    /// once rather than on every line.
    let anchorWindow: Nanoseconds, outputInterval: Nanoseconds, biasRoundInterval: Nanoseconds
    /// `config.maxLateness` and `config.initWindow` in nanoseconds.
    let maxLateness: Nanoseconds, initWindow: Nanoseconds
    let biasRetryInterval: Nanoseconds
    /// `config.biasMaxBlockedProbability`, in the NLOS state's precision.
    let biasMaxBlockedProbability: Float
    /// The corners of the site's bounds grown by `boundsMargin` (at least `insideMarginShare` of the
    /// size) horizontally and `insideVerticalMargin` vertically (see `isInside`).
    let insideLow: Vec3, insideHigh: Vec3
    /// The least horizontal margin of `isInside`, as a share of the site's size on that axis.
    static let insideMarginShare = 0.1
    /// The vertical margin of `isInside` below the floor and above the ceiling, metres.
    static let insideVerticalMargin = 0.5
    /// The site's `tagHeightRange` on a 3-D site (see `holdHeight`), else nil.
    let heightRange: ClosedRange<Double>?
    /// The plane of the anchors of a 3-D site whose anchors lie in one (see `AnchorPlane`), else nil.
    let anchorPlane: AnchorPlane?
    /// False on a 3-D site with four anchors or fewer: four ranges fix three coordinates with one to
    /// spare, and one spare range can show that some range is wrong but not which. There, a range
    /// longer than predicted is not taken for a blocked path (`PairNLOS`, the running excess): doing so
    /// lets the filter drop any one anchor and sit on the point the other three fit, metres off.
    let nlosIdentifiable: Bool
    /// The anchors a placement from ranges alone needs beyond what multilateration needs, or nil: on a
    /// 3-D site with more than four anchors not in one plane, five (two spheres more than unknowns),
    /// since four of many anchors at different heights can meet in a second point the others would
    /// have ruled out. Four-anchor sites and sites whose anchors lie in one plane place from four.
    let placementAnchors: Int?

    init(site: Site, config: EngineConfig) {
        self.site = site
        self.config = config
        rotations = site.anchors.map { $0.orientation?.rotation.transposed ?? .identity }
        anchorPositions = site.anchors.map(\.position)
        anchorTechnology = site.anchors.map { $0.technologies.first ?? .uwb }
        anchorTechnologies = site.anchors.map(\.technologies)
        anchorTechnologyMasks = site.anchors.map { $0.technologies.reduce(0) { $0 | TrackerContext.bit($1) } }
        anchorNumbers = NameIndex(site.anchors.map(\.id))
        zoneHysteresis = ZoneHysteresis(site: site, config: config)
        nlosParameters = PairNLOS.Parameters(config: config)
        anchorWindow = Nanoseconds(saturatingSeconds: config.anchorWindow)
        outputInterval = Nanoseconds(saturatingSeconds: config.outputInterval)
        maxLateness = Nanoseconds(saturatingSeconds: config.maxLateness)
        initWindow = Nanoseconds(saturatingSeconds: config.initWindow)
        biasRoundInterval = Nanoseconds(saturatingSeconds: config.biasRoundInterval)
        biasRetryInterval = Nanoseconds(saturatingSeconds: config.biasRetryInterval)
        biasMaxBlockedProbability = Float(config.biasMaxBlockedProbability)
        let b = site.bounds, m = config.boundsMargin
        let share = Self.insideMarginShare, v = Self.insideVerticalMargin
        let mx = max(m, share * (b.max.x - b.min.x)), my = max(m, share * (b.max.y - b.min.y))
        insideLow = Vec3(b.min.x - mx, b.min.y - my, b.min.z - v)
        insideHigh = Vec3(b.max.x + mx, b.max.y + my, b.max.z + v)
        anchorRangeStd = site.anchors.map { $0.rangeStd ?? ($0.technologies.first ?? .uwb).defaultRangeStd }
        heightRange = site.dimensions == 3 ? site.tagHeightRange : nil
        anchorPlane = site.dimensions == 3 ? AnchorPlane(points: site.anchors.map(\.position)) : nil
        nlosIdentifiable = site.dimensions != 3 || site.anchors.count > 4
        placementAnchors = site.dimensions == 3 && site.anchors.count > 4 && anchorPlane == nil ? 5 : nil
    }

    /// True when anchor `a` ranges with `technology` (its technologies contain it), from a bit mask
    /// per anchor rather than a search of its array.
    @inline(__always)
    func anchorSupports(_ a: Int, _ technology: Technology) -> Bool {
        anchorTechnologyMasks[a] & Self.bit(technology) != 0
    }

    @inline(__always)
    static func bit(_ technology: Technology) -> UInt8 {
        switch technology {
        case .uwb: 1
        case .cs: 2
        case .aoa: 4
        }
    }

    /// The index of the anchor with this id in `site.anchors`, or nil when the site has no such anchor.
    @inline(__always)
    func anchorNumber(_ id: String) -> Int? { anchorNumbers.number(of: id) }
}
