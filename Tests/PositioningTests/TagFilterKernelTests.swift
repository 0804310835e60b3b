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
                let b = p[r * 6 + c + 3], bt = p[(c + 3) * 6 + r], cc = p[(r + 3) * 6 + c + 3]
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
}
