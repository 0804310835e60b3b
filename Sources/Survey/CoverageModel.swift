#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Numerics
public import Positioning

/// The expected accuracy at one place: what one round of measurements (one range from every anchor in
/// range, plus the azimuth and elevation of oriented UWB and `aoa` anchors that see the place) can tell.
public struct CellAccuracy: Sendable, Equatable {
    /// 1-σ horizontal radius in metres, `sqrt((σx² + σy²) / 2)` (the engine's `sigma`) from the
    /// Cramér–Rao bound; `.infinity` where no fix is possible.
    public var sigma: Double
    /// Horizontal covariance of the bound, m² (xx, xy, yy); zeros where no fix is possible.
    public var covXX: Double, covXY: Double, covYY: Double
    /// Anchors in range of the place (any technology).
    public var anchorsInRange: Int
    /// Direction measurements (azimuth and elevation pairs) available at the place.
    public var directions: Int
    /// True when the engine could place a tag here: enough independent observations
    /// (`dimensions + 1` ranging anchors, or `dimensions` observations when a direction is among them)
    /// and a non-singular geometry.
    public var fixable: Bool
    /// True when a fix has two measurements (ranges, azimuths, elevations) to spare, `dimensions + 2`
    /// or more: enough to tell which one a blocked path made long. With one to spare, a blocked path
    /// shows but cannot be singled out, and the filter follows it (docs/engine.md, "Four anchors have
    /// one range to spare").
    public var blockedPathIdentifiable: Bool = false
}

/// The coverage measurement model: which anchors range a tag at a place, with which noise, and the
/// Cramér–Rao bound of one round of their measurements. It builds `Observation`s and takes their
/// gradients from `Observation.predict(at:)`, the model the engine estimates with.
public struct CoverageModel: Sendable, Equatable {
    /// Maximum range per technology, metres (default as `SimulationConfig.maxRange`: UWB 30, CS 20).
    public var maxRange: [Technology: Double]

    /// - Parameter maxRange: metres per technology; a technology not listed has 30 m.
    public init(maxRange: [Technology: Double] = SimulationConfig(tags: 0, duration: 0).maxRange) {
        self.maxRange = maxRange
    }

    /// The technology an anchor would range a tag at `distance` metres with: the least noisy of its
    /// technologies in range, or nil when none reaches.
    public func technology(of anchor: Anchor, distance: Double) -> Technology? {
        let usable = anchor.technologies.filter { distance <= (maxRange[$0] ?? 30) }
        return usable.min { rangeStd(anchor, $0) < rangeStd(anchor, $1) }
    }

    /// The 1-σ range noise of an anchor with a technology, metres: `rangeStd`, else the default.
    public func rangeStd(_ anchor: Anchor, _ technology: Technology) -> Double {
        anchor.rangeStd ?? technology.defaultRangeStd
    }

    /// The observations one round of measurements gives at `p` (values set to the true ones).
    /// - Parameters:
    ///   - site: the site (its anchors and their rotations).
    ///   - p: the tag position, site frame, metres.
    public func observations(site: Site, at p: Vec3) -> [Observation] {
        var out: [Observation] = []
        for (i, a) in site.anchors.enumerated() {
            let v = p - a.position
            let d = v.norm
            guard d > 1e-6, let tech = technology(of: a, distance: d) else { continue }
            // Angle-of-arrival locators measure no distance.
            if tech != .aoa {
                out.append(Observation(kind: .range, anchor: i, anchorPosition: a.position, value: d,
                                       std: rangeStd(a, tech), time: 0))
            }
            // Directions: oriented UWB and `aoa` anchors, inside their field of view (as the simulator
            // sends them).
            guard tech != .cs, let o = a.orientation, a.seesDirection(v) else { continue }
            let toAnchor = o.rotation.transposed
            for kind in [Observation.Kind.azimuth, .elevation] {
                var obs = Observation(kind: kind, anchor: i, anchorPosition: a.position, toAnchor: toAnchor,
                                      value: 0, std: tech.defaultAngleStd, time: 0)
                guard let pr = obs.predict(at: p) else { continue }
                obs.value = pr.value
                out.append(obs)
            }
        }
        return out
    }

    /// The expected accuracy at `p`: the inverse Fisher information of one round of measurements.
    /// On 2-D sites only x and y are free (z is the tag height); on 3-D sites x, y and z are, and the
    /// horizontal block of the 3 × 3 bound is reported.
    public func accuracy(site: Site, at p: Vec3) -> CellAccuracy {
        let obs = observations(site: site, at: p)
        let d = site.dimensions == 3 ? 3 : 2
        let anchors = Set(obs.map(\.anchor)).count
        let directions = obs.filter { $0.kind == .azimuth }.count
        var result = CellAccuracy(sigma: .infinity, covXX: 0, covXY: 0, covYY: 0, anchorsInRange: anchors,
                                  directions: directions, fixable: false)
        let hasAngles = obs.contains { $0.kind != .range }
        let enough = hasAngles ? obs.count >= d : anchors >= d + 1
        guard enough, let cov = Self.bound(obs, at: p, dimensions: d) else { return result }
        let sigma = (0.5 * (cov.xx + cov.yy)).squareRoot()
        guard sigma.isFinite, sigma < 50 else { return result }
        result.sigma = sigma
        result.covXX = cov.xx; result.covXY = cov.xy; result.covYY = cov.yy
        result.fixable = true
        result.blockedPathIdentifiable = obs.count >= d + 2
        return result
    }

    /// The horizontal block of `(Σ gᵢgᵢᵀ / σᵢ²)⁻¹` over the free coordinates, or nil when singular.
    static func bound(_ obs: [Observation], at p: Vec3, dimensions d: Int) -> (xx: Double, xy: Double, yy: Double)? {
        var info = [Double](repeating: 0, count: d * d)
        for o in obs {
            guard let pr = o.predict(at: p) else { continue }
            let w = 1 / (o.std * o.std)
            for r in 0..<d { for c in 0..<d { info[r * d + c] += pr.gradient[r] * pr.gradient[c] * w } }
        }
        // Relative conditioning guard: a near-singular matrix would give a meaningless huge bound.
        let trace = (0..<d).reduce(0.0) { $0 + info[$1 * d + $1] }
        guard trace > 0, let inv = LAPACK.inverseSPD(info, n: d) else { return nil }
        guard inv.allSatisfy(\.isFinite), inv[0] > 0, inv[d + 1] > 0 else { return nil }
        return (inv[0], inv[1], inv[d + 1])
    }
}
