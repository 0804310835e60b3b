import Numerics
import Positioning

/// The nonlinear least-squares adjustment of free anchor coordinates to averaged pair ranges.
struct Adjustment {
    let pairs: [PairRange]
    /// Site index of a free anchor → its slot among the unknowns.
    let freeSlot: [Int: Int]
    /// Free coordinates per anchor (2: x, y; 3: x, y, z).
    let d: Int

    var unknowns: Int { freeSlot.count * d }

    /// Noise-normalised residuals `(predicted − measured) / σ` and their Jacobian (row-major,
    /// `pairs × unknowns`), from the engine's range model (`Observation.predict`).
    func linearise(_ pos: [Vec3]) -> (a: [Double], r: [Double])? {
        let cols = unknowns
        var a = [Double](repeating: 0, count: pairs.count * cols), r: [Double] = []
        r.reserveCapacity(pairs.count)
        for (row, p) in pairs.enumerated() {
            let o = Observation(kind: .range, anchor: p.j, anchorPosition: pos[p.j], value: p.distance, std: p.std, time: 0)
            guard let pr = o.predict(at: pos[p.i]) else { return nil }
            r.append((pr.value - p.distance) / p.std)
            if let s = freeSlot[p.i] { for c in 0..<d { a[row * cols + s * d + c] += pr.gradient[c] / p.std } }
            if let s = freeSlot[p.j] { for c in 0..<d { a[row * cols + s * d + c] -= pr.gradient[c] / p.std } }
        }
        return (a, r)
    }

    func cost(_ pos: [Vec3]) -> Double {
        var c = 0.0
        for p in pairs {
            let e = ((pos[p.i] - pos[p.j]).norm - p.distance) / p.std
            c += e * e
        }
        return c
    }

    /// Levenberg–Marquardt from `start`; each step solved by LAPACK least squares on the damped system.
    func solve(start: [Vec3], maxIterations: Int) -> (pos: [Vec3], cost: Double, iterations: Int)? {
        var pos = start, cost = self.cost(pos), lambda = 1e-3
        let cols = unknowns
        var iterations = 0
        guard cols > 0 else { return (pos, cost, 0) }
        while iterations < maxIterations {
            iterations += 1
            guard let (a, r) = linearise(pos) else { return nil }
            var aa = a, b = r.map { -$0 }
            let damp = lambda.squareRoot()
            for c in 0..<cols {
                var row = [Double](repeating: 0, count: cols)
                row[c] = damp
                aa += row
                b.append(0)
            }
            guard let sol = LAPACK.leastSquares(aa, rows: pairs.count + cols, cols: cols, b: b) else { return nil }
            let candidate = step(pos, sol.x)
            let c = self.cost(candidate)
            let stepSize = sol.x.map(abs).max() ?? 0
            if c < cost {
                let gain = cost - c
                pos = candidate; cost = c
                lambda = max(lambda / 3, 1e-12)
                if stepSize < 1e-9 || gain < 1e-14 * (1 + cost) { break }
            } else {
                lambda *= 4
                if lambda > 1e12 || stepSize < 1e-12 { break }
            }
        }
        return cost.isFinite ? (pos, cost, iterations) : nil
    }

    func step(_ pos: [Vec3], _ delta: [Double]) -> [Vec3] {
        var out = pos
        for (i, s) in freeSlot { for c in 0..<d { out[i][c] += delta[s * d + c] } }
        return out
    }

    /// The information matrix `JᵀWJ` (unknowns × unknowns, row-major) at `pos`.
    func information(_ pos: [Vec3]) -> [Double]? {
        guard let (a, _) = linearise(pos) else { return nil }
        let n = unknowns
        var info = [Double](repeating: 0, count: n * n)
        for row in 0..<pairs.count {
            for p in 0..<n where a[row * n + p] != 0 {
                for q in 0..<n { info[p * n + q] += a[row * n + p] * a[row * n + q] }
            }
        }
        return info
    }

    /// The site index of the anchor that moves most along the weakest direction of `info`.
    func weakestAnchor(_ info: [Double]) -> Int? {
        guard let eig = LAPACK.symmetricEigen(info, n: unknowns) else { return nil }
        let n = unknowns
        var best = (slot: 0, size: -1.0)
        for p in 0..<n where abs(eig.vectors[p * n]) > best.size { best = (p / d, abs(eig.vectors[p * n])) }
        return freeSlot.first { $0.value == best.slot }?.key
    }
}
