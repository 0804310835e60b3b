internal import Numerics

extension TrackerContext {
    /// The position covariance (m², 3 × 3 row-major, site frame) that the errors of the learned biases
    /// add to a tag's estimate: `J·(Σ + m·mᵀ)·Jᵀ`, a consider covariance.
    ///
    /// The filter treats a range with a learned bias removed as unbiased, with white noise, so its
    /// covariance keeps shrinking while the tag's ranges are averaged. But the error of a learned bias
    /// is the same in every range of that anchor: it does not average down, and it moves the tag by
    /// `J·(b̂ − b)`, with `J = (HᵀWH)⁻¹·HᵀW` the weighted least-squares map from range errors to
    /// position (the steady-state response of the filter to a constant range error). `Σ` is the
    /// learner's covariance of its estimates (`BiasLearner.covariance`), with the cross terms that tie
    /// biases together; `m` holds the estimates of the slots whose bias is not applied yet, whose error
    /// is then the whole bias. The anchors are those heard within `anchorWindow`, each weighted by its
    /// nominal range σ. Only the report carries the term: the filter's state and gains are untouched.
    /// - Returns: nil while the learner applies no bias (`covariance` empty), when no anchor heard has
    ///   an applied bias, or when the anchors heard do not fix a position.
    @inline(never)
    func biasUncertainty(anchors: [AnchorState], at p: Vec3, time: Nanoseconds,
                         learner: BiasLearner) -> InlineArray<9, Double>? {
        guard !learner.covariance.isEmpty else { return nil }
        let since = time.saturatingSubtract(anchorWindow)
        let d = site.dimensions, n = learner.n
        // One pass for the anchors heard: their unit vectors, weights and slots, and HᵀWH.
        return withUnsafeTemporaryAllocation(of: (g: Vec3, w: Double, slot: Int, m: Double).self,
                                             capacity: anchorPositions.count) { heard in
            var k = 0, applied = false
            var s = InlineArray<9, Double>(repeating: 0)
            for a in anchorPositions.indices where anchors[a].lastHeard >= since {
                guard let (g, _) = rangeGradient(at: p, anchor: a) else { continue }
                let w = 1 / (anchorRangeStd[a] * anchorRangeStd[a])
                s[0] += w * g.x * g.x; s[1] += w * g.x * g.y; s[2] += w * g.x * g.z
                s[4] += w * g.y * g.y; s[5] += w * g.y * g.z; s[8] += w * g.z * g.z
                let slot = BiasLearner.slot(anchor: a, technology: anchorTechnology[a])
                let isApplied = learner.bias[slot] != 0
                applied = applied || isApplied
                heard[k] = (g, w, slot, isApplied ? 0 : learner.estimate[slot])
                k += 1
            }
            s[3] = s[1]; s[6] = s[2]; s[7] = s[5]
            guard applied, let inverse = BiasLearner.inverse(s, d) else { return nil }
            // J's column for each anchor heard, in place of its unit vector: uₐ = (HᵀWH)⁻¹·gₐ·wₐ.
            for a in 0..<k { heard[a].g = Self.leastSquaresColumn(inverse, heard[a].g, weight: heard[a].w) }
            // C = U·(Σ + m·mᵀ)·Uᵀ with U = [u₁ … u_k] (3 × k): column b of T = U·(Σ + m·mᵀ), then
            // C += T's column b times u_bᵀ (3k² + 6k multiply-adds: C's upper triangle).
            // Σ is symmetric, so row sb of it is read as column sb, contiguously.
            var c0 = 0.0, c1 = 0.0, c2 = 0.0, c4 = 0.0, c5 = 0.0, c8 = 0.0
            learner.covariance.withUnsafeBufferPointer { sigma in
                for b in 0..<k {
                    let row = sigma.baseAddress! + heard[b].slot * n, mb = heard[b].m
                    var tx = 0.0, ty = 0.0, tz = 0.0
                    for a in 0..<k {
                        let h = heard[a]
                        let w = row[h.slot] + h.m * mb
                        tx += w * h.g.x; ty += w * h.g.y; tz += w * h.g.z
                    }
                    // C is symmetric: its upper triangle, mirrored below.
                    let u = heard[b].g
                    c0 += tx * u.x; c1 += tx * u.y; c2 += tx * u.z
                    c4 += ty * u.y; c5 += ty * u.z; c8 += tz * u.z
                }
            }
            var c = InlineArray<9, Double>(repeating: 0)
            c[0] = c0; c[1] = c1; c[2] = c2; c[3] = c1; c[4] = c4; c[5] = c5; c[6] = c2; c[7] = c5; c[8] = c8
            return c
        }
    }

    /// The column of the weighted least-squares map `J = (HᵀWH)⁻¹·HᵀW` for one measurement of gradient
    /// `g` and weight `w`: `w·(HᵀWH)⁻¹·g`, with the inverse 3 × 3 row-major (`BiasLearner.inverse`).
    @inline(__always)
    static func leastSquaresColumn(_ inverse: InlineArray<9, Double>, _ g: Vec3, weight w: Double) -> Vec3 {
        Vec3(w * (inverse[0] * g.x + inverse[1] * g.y + inverse[2] * g.z),
             w * (inverse[3] * g.x + inverse[4] * g.y + inverse[5] * g.z),
             w * (inverse[6] * g.x + inverse[7] * g.y + inverse[8] * g.z))
    }
}
