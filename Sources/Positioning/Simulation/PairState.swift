#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Numerics

/// The state of one anchor-tag ranging pair: its own random stream, technology and NLOS episode.
struct PairState {
    var rng: SeededRandom
    /// The technology this pair ranges with (drawn once for dual-technology anchors).
    let technology: Technology
    /// Nominal line-of-sight 1-σ range noise in metres: the anchor's calibrated value or the default.
    let sigma: Double
    /// End of the current LOS/NLOS episode; a new one is drawn at the first tick past it.
    var episodeEnd: Nanoseconds = .min
    /// Extra range of the current episode in metres: 0 in line of sight.
    var nlosBias: Double = 0
    /// The pair is silent (dropped out) before this time.
    var silentUntil: Nanoseconds = .min
    /// Whether the last tick was in range and ranging, so that losing the tag emits one `removed`.
    var active = false

    init(anchor: Anchor, rng: SeededRandom) {
        self.rng = rng
        let techs = anchor.technologies.isEmpty ? [Technology.uwb] : anchor.technologies
        technology = techs.count == 1 ? techs[0] : techs[Int(self.rng.next() % UInt64(techs.count))]
        sigma = anchor.rangeStd ?? technology.defaultRangeStd
    }

    var isNLOS: Bool { nlosBias > 0 }

    /// Starts a new LOS/NLOS episode at `t` when the current one is over.
    mutating func updateEpisode(at t: Nanoseconds, config: SimulationConfig) {
        guard t >= episodeEnd else { return }
        let seconds = rng.nextUniform(config.nlosEpisode.lowerBound, config.nlosEpisode.upperBound)
        episodeEnd = t + Nanoseconds((seconds * 1e9).rounded())
        nlosBias = rng.nextBernoulli(config.nlosProbability)
            ? rng.nextUniform(config.nlosBias.lowerBound, config.nlosBias.upperBound) : 0
    }

    /// A measured distance in metres: true distance + anchor bias + NLOS bias + noise, or an outlier;
    /// never negative.
    mutating func measure(distance d: Double, anchorBias: Double, config: SimulationConfig) -> Double {
        let std = sigma * config.noiseScale * (isNLOS ? config.nlosNoiseFactor : 1)
        var m = d + anchorBias + nlosBias
        if std > 0 { m += std * rng.nextGaussian() }
        if rng.nextBernoulli(config.outlierProbability) {
            m = d + rng.nextUniform(-config.outlierMagnitude, config.outlierMagnitude)
        }
        return Swift.max(0, m)
    }

    /// Azimuth and elevation in the anchor frame (radians) of the site-frame vector `v` from the anchor to
    /// the tag, with the technology's angle noise (larger in NLOS).
    mutating func measureDirection(_ v: Vec3, orientation: Orientation, config: SimulationConfig) -> Direction {
        let a = orientation.toAnchor(v)
        let std = technology.defaultAngleStd * config.noiseScale * (isNLOS ? config.nlosNoiseFactor : 1)
        var az = atan2(a.y, a.x), el = atan2(a.z, (a.x * a.x + a.y * a.y).squareRoot())
        if std > 0 {
            az += std * rng.nextGaussian()
            el += std * rng.nextGaussian()
        }
        if az > Double.pi { az -= 2 * Double.pi } else if az <= -Double.pi { az += 2 * Double.pi }
        el = Swift.max(-Double.pi / 2, Swift.min(Double.pi / 2, el))
        return .angles(azimuth: az, elevation: el)
    }
}
