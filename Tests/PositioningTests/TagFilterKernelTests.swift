import Testing
import Numerics
@testable import Positioning

/// The filter's loops as they were before the straight-line kernels (`TagFilter+Kernels.swift`), on
/// plain arrays: the reference the kernels must match bit for bit.
private struct ReferenceFilter {
    var x: [Double]
    var p: [Double]
    let dimensions: Int

    init(_ f: TagFilter) {
        x = (0..<6).map { f.x[$0] }
        p = (0..<36).map { f.p[$0] }
        dimensions = f.dimensions
    }

    mutating func predict(dt: Double, q: Double) {
        let d = dimensions
        for k in 0..<d { x[k] += dt * x[k + 3] }
        for r in 0..<d {
            for c in 0..<d {
                let b = p[r * 6 + c + 3], bt = p[(r + 3) * 6 + c], cc = p[(r + 3) * 6 + c + 3]
                p[r * 6 + c] += dt * (b + bt) + dt * dt * cc
            }
        }
        for r in 0..<d {
            for c in 0..<d {
                let v = p[r * 6 + c + 3] + dt * p[(r + 3) * 6 + c + 3]
                p[r * 6 + c + 3] = v
                p[(c + 3) * 6 + r] = v
            }
        }
        let q11 = q * dt * dt * dt / 3, q12 = q * dt * dt / 2, q22 = q * dt
        for k in 0..<d {
            p[k * 6 + k] += q11
            p[k * 6 + k + 3] += q12
            p[(k + 3) * 6 + k] += q12
            p[(k + 3) * 6 + k + 3] += q22
        }
        clamp()
    }

    func innovation(_ o: Observation) -> (residual: Double, variance: Double, gradient: Vec3)? {
        guard let pr = o.predict(at: Vec3(x[0], x[1], x[2])) else { return nil }
        var g = pr.gradient
        if dimensions == 2 { g.z = 0 }
        var hph = 0.0
        for r in 0..<3 { for c in 0..<3 { hph += g[r] * p[r * 6 + c] * g[c] } }
        return (o.residual(pr.value), hph + o.std * o.std, g)
    }

    mutating func update(residual nu: Double, gradient g: Vec3, measurementVariance r: Double) {
        var ph = [Double](repeating: 0, count: 6)
        for i in 0..<6 { ph[i] = p[i * 6] * g.x + p[i * 6 + 1] * g.y + p[i * 6 + 2] * g.z }
        let s = g.x * ph[0] + g.y * ph[1] + g.z * ph[2] + r
        guard s > 0, s.isFinite else { return }
        var k = [Double](repeating: 0, count: 6)
        for i in 0..<6 { k[i] = ph[i] / s }
        for i in 0..<6 { x[i] += k[i] * nu }
        for i in 0..<6 {
            for j in i..<6 {
                let v = p[i * 6 + j] - k[i] * ph[j] - ph[i] * k[j] + s * k[i] * k[j]
                p[i * 6 + j] = v
                p[j * 6 + i] = v
            }
        }
        clamp()
    }

    mutating func clamp() {
        for i in 0..<6 {
            let free = (i % 3) < dimensions
            let v = p[i * 6 + i]
            if !free { p[i * 6 + i] = 0; continue }
            if !(v >= TagFilter.minVariance) { p[i * 6 + i] = TagFilter.minVariance }
            if v > TagFilter.maxVariance { p[i * 6 + i] = TagFilter.maxVariance }
        }
    }

    /// True when the filter holds exactly these numbers (bit for bit).
    func matches(_ f: TagFilter) -> Bool {
        (0..<6).allSatisfy { f.x[$0].bitPattern == x[$0].bitPattern }
            && (0..<36).allSatisfy { f.p[$0].bitPattern == p[$0].bitPattern }
    }
}

@Suite struct TagFilterKernelTests {
    /// Random walks of predictions (various intervals and noise), range and angle updates on 2-D and
    /// 3-D filters: the straight-line kernels give the loops' numbers exactly, not merely close ones,
    /// since the engine's outputs are compared byte for byte across such changes.
    @Test func kernelsMatchTheLoopsBitForBit() {
        var rng = SeededRandom(seed: 31)
        for d in [2, 3] {
            for run in 0..<40 {
                var cov = [Double](repeating: 0, count: d * d)
                for _ in 0..<4 {
                    let g = (0..<d).map { _ in rng.nextGaussian() }
                    for i in 0..<d { for j in 0..<d { cov[i * d + j] += 0.2 * g[i] * g[j] } }
                }
                let start = Vec3(rng.nextUniform(0, 40), rng.nextUniform(0, 30), rng.nextUniform(0, 3))
                var f = TagFilter(position: start, covariance: cov, dimensions: d,
                                  velocityStd: rng.nextUniform(0.01, 2), time: 0)
                var reference = ReferenceFilter(f)
                var t: Nanoseconds = 0
                for step in 0..<60 {
                    let dt = Nanoseconds(rng.nextUniform(0, 0.5) * 1e9)
                    let q = step % 7 == 0 ? 1e-6 : rng.nextUniform(0.1, 3)
                    t += dt
                    let before = f.time
                    f.predict(to: t, accelerationNoise: q)
                    if t > before { reference.predict(dt: Double(t - before) * 1e-9, q: q) }
                    #expect(reference.matches(f), "d \(d) run \(run) step \(step): predict")
                    let anchor = Vec3(rng.nextUniform(0, 40), rng.nextUniform(0, 30), rng.nextUniform(2, 8))
                    let value = (f.position - anchor).norm + rng.nextGaussian(mean: 0, std: 0.3)
                    let range = Observation(kind: .range, anchor: 0, anchorPosition: anchor, value: value, std: 0.1,
                                            time: t)
                    // The range path without an `Observation` and the generic one agree with the loops.
                    let fast = f.rangeInnovation(value: value, std: 0.1, anchor: anchor)
                    let generic = f.innovation(range)
                    let expected = reference.innovation(range)
                    #expect(fast?.residual.bitPattern == expected?.residual.bitPattern)
                    #expect(fast?.variance.bitPattern == expected?.variance.bitPattern)
                    #expect(fast?.gradient == expected?.gradient)
                    #expect(generic?.variance.bitPattern == expected?.variance.bitPattern)
                    guard let inn = expected else { continue }
                    let r = 0.01 * rng.nextUniform(1, 20)
                    f.update(residual: inn.residual, gradient: inn.gradient, measurementVariance: r)
                    reference.update(residual: inn.residual, gradient: inn.gradient, measurementVariance: r)
                    #expect(reference.matches(f), "d \(d) run \(run) step \(step): update")
                }
            }
        }
    }

    /// The prediction is the constant-velocity model's `F·P·Fᵀ + Q`, computed here by plain 6×6
    /// products, and stays symmetric. The covariance comes from range updates, so its position–velocity
    /// block is not symmetric (cov(xᵢ, vⱼ) ≠ cov(xⱼ, vᵢ)); the kernels once added cov(xᵢ, vⱼ) twice
    /// instead of cov(xᵢ, vⱼ) + cov(xⱼ, vᵢ), which only such a covariance shows.
    @Test func predictIsFPFtPlusQAndSymmetric() {
        var rng = SeededRandom(seed: 77)
        var worstBlockAsymmetry = 0.0
        for d in [2, 3] {
            for run in 0..<20 {
                let start = Vec3(rng.nextUniform(0, 40), rng.nextUniform(0, 30), rng.nextUniform(0, 3))
                var f = TagFilter(position: start, covariance: d == 3 ? [1, 0, 0, 0, 1, 0, 0, 0, 1] : [1, 0, 0, 1],
                                  dimensions: d, velocityStd: 1, time: 0)
                var t: Nanoseconds = 0
                for _ in 0..<12 {
                    t += Nanoseconds(rng.nextUniform(0.05, 0.3) * 1e9)
                    f.predict(to: t, accelerationNoise: 1)
                    let anchor = Vec3(rng.nextUniform(0, 40), rng.nextUniform(0, 30), rng.nextUniform(2, 8))
                    let value = (f.position - anchor).norm + rng.nextGaussian(mean: 0, std: 0.1)
                    guard let inn = f.rangeInnovation(value: value, std: 0.1, anchor: anchor) else { continue }
                    f.update(residual: inn.residual, gradient: inn.gradient, measurementVariance: 0.01)
                }
                let p = (0..<36).map { f.p[$0] }
                for r in 0..<d { for c in 0..<d where r != c {
                    worstBlockAsymmetry = max(worstBlockAsymmetry, abs(p[r * 6 + c + 3] - p[c * 6 + r + 3]))
                } }
                let step = Nanoseconds(rng.nextUniform(0.05, 0.5) * 1e9)
                let dt = Double(step) * 1e-9, q = rng.nextUniform(0.1, 3)   // the filter's own dt
                // F = [I dt·I; 0 I] on the free coordinates; Q the white-acceleration block per axis.
                var fm = [Double](repeating: 0, count: 36)
                for i in 0..<6 { fm[i * 6 + i] = 1 }
                for k in 0..<d { fm[k * 6 + k + 3] = dt }
                var fp = [Double](repeating: 0, count: 36), expected = [Double](repeating: 0, count: 36)
                for i in 0..<6 { for j in 0..<6 { for k in 0..<6 { fp[i * 6 + j] += fm[i * 6 + k] * p[k * 6 + j] } } }
                for i in 0..<6 { for j in 0..<6 { for k in 0..<6 { expected[i * 6 + j] += fp[i * 6 + k] * fm[j * 6 + k] } } }
                for k in 0..<d {
                    expected[k * 6 + k] += q * dt * dt * dt / 3
                    expected[k * 6 + k + 3] += q * dt * dt / 2
                    expected[(k + 3) * 6 + k] += q * dt * dt / 2
                    expected[(k + 3) * 6 + k + 3] += q * dt
                }
                f.predict(to: t + step, accelerationNoise: q)
                for i in 0..<6 {
                    for j in 0..<6 {
                        #expect(abs(f.p[i * 6 + j] - expected[i * 6 + j]) <= 1e-12 * max(1, abs(expected[i * 6 + j])),
                                "d \(d) run \(run): P[\(i)][\(j)] \(f.p[i * 6 + j]) against \(expected[i * 6 + j])")
                        #expect(f.p[i * 6 + j] == f.p[j * 6 + i], "d \(d) run \(run): P not symmetric at \(i), \(j)")
                    }
                }
            }
        }
        #expect(worstBlockAsymmetry > 1e-3, "the test needs covariances whose position–velocity block is not symmetric")
    }
}
