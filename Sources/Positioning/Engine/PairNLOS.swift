#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Numerics

/// One anchor-tag pair's NLOS state: two hypotheses on its ranges, line of sight (the innovation is
/// zero-mean noise) or blocked (the range is longer than the distance by an excess `β ≥ 0` that holds
/// while the path stays blocked), with the probability of the second and the estimate of `β` under it.
/// The pair switches between them as a Markov chain with time constant `EngineConfig.nlosSwitchTime`.
struct PairNLOS: Sendable {
    /// Probability that the pair's path is blocked.
    var probability: Float = 0
    /// Mean (m) and variance (m²) of the blocked path's excess length, under the blocked hypothesis.
    var excess: Float
    var excessVariance: Float

    init(config: EngineConfig) {
        excess = Float(config.nlosExcessPrior)
        excessVariance = Float(config.nlosExcessPriorStd * config.nlosExcessPriorStd)
    }

    /// Updates the hypotheses with one range innovation and returns the correction of that range
    /// under the mixture of the two (moment-matched): the mean shift to subtract from the residual (m)
    /// and the variance to add to the range's (m²). The correction is made with the excess as it was
    /// before this range, which teaches it only afterwards.
    /// - Parameters:
    ///   - nu: the range's innovation, measured minus predicted, metres.
    ///   - s: its variance (position and noise), m².
    ///   - dt: seconds since the pair's previous range (0 for its first).
    mutating func observe(_ nu: Double, variance s: Double, interval dt: Double,
                          config: EngineConfig) -> (shift: Double, variance: Double) {
        observe(nu, variance: s, interval: dt, parameters: Parameters(config: config))
    }

    /// The tuning `observe` reads, taken from an `EngineConfig` once (the engine's hot path passes
    /// these few numbers, not the whole configuration, which a call would copy).
    struct Parameters: Sendable {
        let switchTime: Double
        /// `nlosExcessDrift²` (m²).
        let drift2: Double
        let noiseFactor: Double
        /// The excess's prior mean (m) and variance (m²).
        let prior: Double
        let priorVariance: Double

        init(config: EngineConfig) {
            switchTime = config.nlosSwitchTime
            drift2 = config.nlosExcessDrift * config.nlosExcessDrift
            noiseFactor = config.nlosNoiseFactor
            prior = config.nlosExcessPrior
            priorVariance = config.nlosExcessPriorStd * config.nlosExcessPriorStd
        }
    }

    /// `observe(_:variance:interval:config:)` with the tuning already extracted.
    @inline(__always)
    mutating func observe(_ nu: Double, variance s: Double, interval dt: Double,
                          parameters config: Parameters) -> (shift: Double, variance: Double) {
        // Switching probability over dt of a symmetric two-state chain.
        let h = 0.5 * (1 - exp(-dt / config.switchTime))
        let p = Double(probability) * (1 - h) + (1 - Double(probability)) * h
        let b = Double(excess)
        let vb = Double(excessVariance) + config.drift2
        let sn = config.noiseFactor * s
        // Under the blocked hypothesis the excess is a constant seen through the innovation (a scalar
        // Kalman update), and it cannot be negative: its prior N(b, vb) is truncated at zero, so the
        // likelihood carries the share of the posterior above zero over that of the prior. A range
        // shorter than predicted is not taken for a blocked path however wide the prior.
        let k = vb / (vb + sn)
        let m = b + k * (nu - b), vbn = (1 - k) * vb
        let d = nu - b
        let los = exp(-0.5 * nu * nu / s) / s.squareRoot()
        let nlos = exp(-0.5 * d * d / (sn + vb)) / (sn + vb).squareRoot()
            * normalCDF(m / vbn.squareRoot()) / max(normalCDF(b / vb.squareRoot()), .leastNormalMagnitude)
        let post = p * nlos / max(p * nlos + (1 - p) * los, .leastNormalMagnitude)
        let shift = post * b, extra = post * vb + post * (1 - post) * b * b
        // Under line of sight the excess is back at its prior. The two are merged by moments.
        let bn = max(0, m)
        let b0 = config.prior, vb0 = config.priorVariance
        probability = Float(post)
        excess = Float(post * bn + (1 - post) * b0)
        excessVariance = Float(post * vbn + (1 - post) * vb0 + post * (1 - post) * (bn - b0) * (bn - b0))
        return (shift, extra)
    }
}

/// Φ(x), the standard normal distribution function.
private func normalCDF(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }
