#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small, fast, deterministic random number generator: xoshiro256** seeded through SplitMix64.
///
/// The same seed always gives the same sequence on every platform, which is what makes simulations
/// replayable. Not cryptographically secure.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    /// The second value of the last Box–Muller pair, handed out by the next `nextGaussian()` call.
    private var spare: Double?

    /// Creates a generator whose whole sequence is determined by `seed`.
    /// - Parameter seed: any 64-bit value; nearby seeds give unrelated sequences.
    public init(seed: UInt64) {
        var sm = seed
        s0 = SeededRandom.splitMix(&sm); s1 = SeededRandom.splitMix(&sm)
        s2 = SeededRandom.splitMix(&sm); s3 = SeededRandom.splitMix(&sm)
        if s0 | s1 | s2 | s3 == 0 { s0 = 0x9E37_79B9_7F4A_7C15 }  // the all-zero state is a fixed point
    }

    /// Creates an independent stream for sub-stream `stream` of `seed` (e.g. one per tag or per pair).
    /// - Parameters:
    ///   - seed: the simulation seed.
    ///   - stream: an index distinguishing the stream; different indices give unrelated sequences.
    public init(seed: UInt64, stream: UInt64) {
        var sm = seed ^ (stream &* 0xD1B5_4A32_D192_ED03)
        let mixed = SeededRandom.splitMix(&sm) ^ stream
        self.init(seed: mixed)
    }

    /// One SplitMix64 step: advances `state` and returns a well-mixed 64-bit value.
    @inlinable public static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next 64 random bits (xoshiro256**).
    public mutating func next() -> UInt64 {
        let result = rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = rotl(s3, 45)
        return result
    }

    @inline(__always) private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// A uniform draw in [0, 1) with 53 random bits.
    public mutating func nextUniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// A uniform draw in [`low`, `high`).
    public mutating func nextUniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * nextUniform() }

    /// True with probability `p` (p ≤ 0: never, p ≥ 1: always).
    public mutating func nextBernoulli(_ p: Double) -> Bool { p > 0 && nextUniform() < p }

    /// A standard normal draw (mean 0, standard deviation 1), by the Box–Muller transform.
    public mutating func nextGaussian() -> Double {
        if let s = spare { spare = nil; return s }
        let u1 = 1 - nextUniform()              // (0, 1]: log is finite
        let u2 = nextUniform()
        let r = (-2 * log(u1)).squareRoot()
        let a = 2 * Double.pi * u2
        spare = r * sin(a)
        return r * cos(a)
    }

    /// A normal draw with the given mean and standard deviation.
    public mutating func nextGaussian(mean: Double, std: Double) -> Double { mean + std * nextGaussian() }

    /// An exponential draw with the given mean (the waiting time of a Poisson process).
    public mutating func nextExponential(mean: Double) -> Double { -mean * log(1 - nextUniform()) }
}
