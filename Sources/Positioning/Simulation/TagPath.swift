#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Numerics

/// One piece of a tag's path: a straight walk from `p0` to `p1`, or a stop (`p0 == p1`).
struct PathSegment {
    var t0: Nanoseconds
    var t1: Nanoseconds
    var p0: Vec3
    var p1: Vec3
    var moving: Bool
}

/// A tag's random-waypoint path, generated lazily from the tag's own random stream so that the path
/// does not depend on who asks for it or when.
///
/// Invariant: position queries come with non-decreasing times (the simulator's merge is time-ordered);
/// hint look-ahead may run ahead of them. Segments behind both cursors are trimmed.
struct TagPath {
    private var rng: SeededRandom
    private let config: SimulationConfig
    /// Waypoint box: the site bounds shrunk by a margin; z fixed on 2-D sites.
    private let low: Vec3, high: Vec3
    private let endTime: Nanoseconds
    private let minLeg: Double
    /// Generated segments; `segments[0]` has absolute index `base`.
    private var segments: [PathSegment] = []
    private var base = 0
    /// Absolute index of the segment holding the last queried time.
    private var positionCursor = 0
    /// Absolute index of the next segment to inspect for a motion hint.
    private var hintCursor = 0
    private var lastHint: MotionState = .unknown

    init(site: Site, config: SimulationConfig, rng seeded: SeededRandom) {
        self.rng = seeded
        self.config = config
        let b = site.bounds
        func shrink(_ lo: Double, _ hi: Double) -> (Double, Double) {
            let m = Swift.min(0.5, 0.25 * Swift.max(0, hi - lo))
            return (lo + m, Swift.max(lo + m, hi - m))
        }
        let (x0, x1) = shrink(b.min.x, b.max.x), (y0, y1) = shrink(b.min.y, b.max.y)
        var z0: Double, z1: Double
        if site.dimensions == 3 {
            // The site's own range where it has one: the heights its tags are carried at.
            let heights = site.tagHeightRange ?? config.heightRange
            z0 = Swift.max(heights.lowerBound, b.min.z)
            z1 = Swift.min(heights.upperBound, b.max.z)
            if z0 > z1 { z0 = 0.5 * (b.min.z + b.max.z); z1 = z0 }
        } else {
            z0 = site.tagHeight ?? Swift.min(Swift.max(1.0, b.min.z), b.max.z)
            z1 = z0
        }
        low = Vec3(x0, y0, z0); high = Vec3(x1, y1, z1)
        minLeg = Swift.min(2.0, 0.3 * (high - low).norm)
        endTime = config.startTime + Nanoseconds((config.duration * 1e9).rounded())
        let start = randomWaypoint()
        // Start either part-way through a stop or at the beginning of a walk.
        if self.rng.nextBernoulli(0.5) {
            let stop = nanos(stopSeconds() * self.rng.nextUniform(0.2, 1))
            segments.append(PathSegment(t0: config.startTime, t1: config.startTime + stop, p0: start, p1: start,
                                        moving: false))
        } else {
            appendLeg(from: start, at: config.startTime)
        }
    }

    private func nanos(_ seconds: Double) -> Nanoseconds { Swift.max(1, Nanoseconds((seconds * 1e9).rounded())) }

    private mutating func randomWaypoint() -> Vec3 {
        Vec3(rng.nextUniform(low.x, high.x), rng.nextUniform(low.y, high.y), rng.nextUniform(low.z, high.z))
    }

    /// A log-uniform stop duration in seconds.
    private mutating func stopSeconds() -> Double {
        let r = config.stopDuration
        return exp(rng.nextUniform(log(r.lowerBound), log(r.upperBound)))
    }

    /// Appends a walk from `p` starting at `t` to a new waypoint at least `minLeg` away when possible,
    /// at a speed drawn from the config's range.
    private mutating func appendLeg(from p: Vec3, at t: Nanoseconds) {
        var target = randomWaypoint()
        var best = (target - p).norm
        var tries = 0
        while best < minLeg && tries < 8 {
            let candidate = randomWaypoint()
            let d = (candidate - p).norm
            if d > best { target = candidate; best = d }
            tries += 1
        }
        let speed = rng.nextUniform(config.speed.lowerBound, config.speed.upperBound)
        // A floor of 0.5 s keeps tiny sites from producing endless nanosecond legs (a slower walk instead).
        segments.append(PathSegment(t0: t, t1: t + nanos(Swift.max(best / speed, 0.5)), p0: p, p1: target,
                                    moving: true))
    }

    /// Appends the segment that follows the last one.
    private mutating func extend() {
        let last = segments[segments.count - 1]
        if last.moving && rng.nextBernoulli(config.stopProbability) {
            segments.append(PathSegment(t0: last.t1, t1: last.t1 + nanos(stopSeconds()), p0: last.p1, p1: last.p1,
                                        moving: false))
        } else {
            appendLeg(from: last.p1, at: last.t1)
        }
    }

    /// The segment with absolute index `i`, generating segments as needed.
    private mutating func segment(_ i: Int) -> PathSegment {
        while i - base >= segments.count { extend() }
        return segments[i - base]
    }

    /// Drops segments that neither cursor will visit again.
    private mutating func trim() {
        let keep = Swift.min(positionCursor, hintCursor) - base
        if keep >= 32 { segments.removeFirst(keep); base += keep }
    }

    /// The true position at `t` (site frame, metres); `t` must not decrease between calls.
    mutating func position(at t: Nanoseconds) -> Vec3 {
        var s = segment(positionCursor)
        if t >= s.t1 {
            while t >= s.t1 { positionCursor += 1; s = segment(positionCursor) }
            trim()
        }
        guard s.moving, s.t1 > s.t0 else { return s.p0 }
        let f = Swift.max(0, Swift.min(1, Double(t - s.t0) / Double(s.t1 - s.t0)))
        return s.p0 + f * (s.p1 - s.p0)
    }

    /// The next motion hint (time, state): the first at the start time, then one per change between
    /// walking and standing that lasts at least the hint delay. Nil when the next lies past the end.
    mutating func nextHint() -> (time: Nanoseconds, state: MotionState)? {
        while true {
            let s = segment(hintCursor)
            if s.t0 >= endTime { return nil }
            hintCursor += 1
            let state: MotionState = s.moving ? .moving : .stationary
            if lastHint == .unknown { lastHint = state; return (s.t0, state) }
            guard state != lastHint else { continue }
            let delay = nanos(s.moving ? config.movingHintDelay : config.stationaryHintDelay)
            if s.t1 - s.t0 >= delay {
                lastHint = state
                return (s.t0 + delay, state)
            }
        }
    }
}
