#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Numerics
public import Positioning

/// Checks a coverage prediction against the engine: a tag standing still at one place, ranged by every
/// anchor in range at a fixed rate with the coverage model's noise (ranges, and directions from oriented
/// UWB anchors inside their field of view), positioned by the engine; the RMSE of its horizontal
/// positions after a warm-up is compared with the predicted σ.
public enum CoverageValidation {
    /// The outcome at one place.
    public struct Outcome: Sendable, Equatable {
        /// The place, site frame, metres.
        public var position: Vec3
        /// Predicted 1-σ horizontal radius σ (Cramér–Rao bound of one round of measurements), metres.
        public var predicted: Double
        /// The horizontal RMSE that σ predicts, `√2·σ` (σ is the per-axis radius `sqrt((σx² + σy²)/2)`),
        /// metres: what `sextant evaluate` calls RMSE.
        public var predictedRMSE: Double { 2.squareRoot() * predicted }
        /// RMS of the engine's horizontal errors after the warm-up, `sqrt(mean(|e|²))` as in
        /// `sextant evaluate`, metres.
        public var engineRMSE: Double
        /// Position lines evaluated.
        public var samples: Int
        /// `engineRMSE / predictedRMSE − 1`.
        public var relativeDifference: Double { engineRMSE / predictedRMSE - 1 }
    }

    /// Simulates and positions a static tag at `position`.
    /// - Parameters:
    ///   - site: the site.
    ///   - position: where the tag stands (z is the site's tag height on 2-D sites).
    ///   - duration: seconds of ranging; the first `warmup` seconds are not evaluated.
    ///   - rate: ranging rate of every anchor-tag pair, Hz (each pair with its own random phase).
    ///   - config: the engine's configuration (e.g. with `learnBias` off).
    ///   - seed: the random seed.
    public static func run(site: Site, at position: Vec3, duration: Double = 60, warmup: Double = 5, rate: Double = 5,
                           config: EngineConfig = EngineConfig(), model: CoverageModel = CoverageModel(),
                           seed: UInt64 = 1) -> Outcome {
        var p = position
        if site.dimensions == 2, let h = site.tagHeight { p.z = h }
        let predicted = model.accuracy(site: site, at: p).sigma
        var rng = SeededRandom(seed: seed)
        let start: Nanoseconds = 1_700_000_000_000_000_000
        let period = 1 / rate
        let phases = site.anchors.map { _ in rng.nextUniform() * period }
        var events: [(Double, Event)] = []
        var t = 0.0
        while t < duration {
            for (i, a) in site.anchors.enumerated() {
                let v = p - a.position
                guard let tech = model.technology(of: a, distance: v.norm) else { continue }
                let std = model.rangeStd(a, tech)
                let time = t + phases[i]
                var direction: Direction? = nil
                if tech == .uwb, let o = a.orientation, a.seesDirection(v) {
                    let u = o.toAnchor(v)
                    let s = tech.defaultAngleStd
                    direction = .angles(azimuth: atan2(u.y, u.x) + s * rng.nextGaussian(),
                                        elevation: atan2(u.z, u.horizontalNorm) + s * rng.nextGaussian())
                }
                let r = Ranging(site: site.id, anchor: a.id, tag: "T0", technology: tech,
                                distance: max(0, v.norm + a.rangeBias + std * rng.nextGaussian()), std: std,
                                direction: direction, time: start + Nanoseconds((time * 1e9).rounded()))
                events.append((time, .ranging(r)))
            }
            t += period
        }
        events.sort { $0.0 < $1.0 }
        var engine = Engine(sites: [site], config: config)
        var sum = 0.0, n = 0
        let warm = start + Nanoseconds(warmup * 1e9)
        for (_, e) in events {
            try? engine.handle(e) { out in
                guard case .position(let est) = out, est.time >= warm else { return }
                let d = est.position - p
                sum += d.x * d.x + d.y * d.y
                n += 1
            }
        }
        let rmse = n > 0 ? (sum / Double(n)).squareRoot() : .infinity
        return Outcome(position: p, predicted: predicted, engineRMSE: rmse, samples: n)
    }
}
