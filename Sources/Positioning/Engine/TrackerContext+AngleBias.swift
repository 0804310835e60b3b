internal import Numerics

extension TrackerContext {
    /// Hands one placed tag's latest bearings from `aoa` anchors to the bias learner's angle slots, at
    /// most once per `biasRoundInterval` and once the tag has moved `biasRoundDistance`, as one round.
    ///
    /// A locator mounted a few degrees off its stated orientation (or with an antenna array whose phase
    /// centres are off) measures every bearing turned by the same offset: a persistent error that no
    /// averaging removes. Each row is a bearing's raw residual `y = θ − θ(p̂)` (measured minus predicted
    /// at the filter's position, no offset removed) with the bearing's gradient; its model is
    /// `y = b − g·δ + noise`, as for ranges, so the learner projects out the position error and
    /// accumulates what only an offset explains: an anchor's offset is estimated from where the other
    /// anchors place the tag.
    func teachAngleBiases(_ track: inout TagTrack, time: Nanoseconds, learner: inout BiasLearner) {
        guard learner.enabled, isRoundDue(last: track.lastAngleRound, time: time),
              track.isPlaced, case let p = track.placedFilter.position,
              (p - track.lastAnglePosition).norm >= config.biasRoundDistance
        else { return }
        let since = roundWindowStart(time), d = site.dimensions
        let std = Technology.aoa.defaultAngleStd
        var rows: [BiasLearner.Row] = []
        for a in anchorPositions.indices where anchorSupports(a, .aoa) && track.anchors[a].lastHeard >= since {
            for elevation in [false, true] {
                let raw = Double(elevation ? track.anchors[a].elevation : track.anchors[a].azimuth)
                guard !raw.isNaN else { continue }
                let o = Observation(kind: elevation ? .elevation : .azimuth, anchor: a, anchorPosition: anchorPositions[a],
                                    toAnchor: rotations[a], value: raw, std: std, time: time)
                guard let (predicted, gradient) = o.predict(at: p) else { continue }
                var g = gradient
                if d == 2 { g.z = 0 }
                rows.append(BiasLearner.Row(slot: learner.angleSlot(anchor: a, elevation: elevation),
                                            y: o.residual(predicted), g: g, w: 1 / (std * std)))
            }
        }
        // More rows than the position has coordinates, by two: an offset must be told from a shift.
        guard rows.count >= d + 2 else { return }
        track.lastAngleRound = time
        track.lastAnglePosition = p
        learner.learn(rows, dimensions: d)
        for a in track.anchors.indices {
            track.anchors[a].azimuth = .nan
            track.anchors[a].elevation = .nan
        }
    }
}

extension TrackerContext {
    /// `biasUncertainty`, plus on a site with `aoa` anchors what their angle offsets' errors add
    /// (`angleUncertainty`): the consider covariance a reported position carries.
    @inline(__always)
    func considerUncertainty(anchors: [AnchorState], at p: Vec3, time: Nanoseconds,
                             learner: BiasLearner) -> InlineArray<9, Double>? {
        let ranges = biasUncertainty(anchors: anchors, at: p, time: time, learner: learner)
        guard learner.angleBase != nil, let angles = angleUncertainty(anchors: anchors, at: p, time: time,
                                                                      learner: learner) else { return ranges }
        var sum = ranges
        Self.add(angles, to: &sum)
        return sum
    }

    /// The position covariance (m², 3 × 3 row-major) that the `aoa` anchors' angle offsets add to a
    /// tag's estimate: `Σᵢ uᵢ·uᵢᵀ·Vᵢ` over the bearings of the anchors heard within `anchorWindow`, with
    /// `uᵢ` the column of `J = (HᵀWH)⁻¹·HᵀW` (the least-squares map from bearing errors to position)
    /// and `Vᵢ` the variance the offset's correction leaves (`BiasLearner.angleCorrection`). An
    /// offset is the same in every bearing of its anchor, so the filter's averaging does not shrink
    /// it; only the report carries it. Cross terms between offsets are left out. Nil when the bearings
    /// heard do not fix a position.
    func angleUncertainty(anchors: [AnchorState], at p: Vec3, time: Nanoseconds,
                          learner: BiasLearner) -> InlineArray<9, Double>? {
        let since = time.saturatingSubtract(anchorWindow), d = site.dimensions
        let std = Technology.aoa.defaultAngleStd, w = 1 / (std * std)
        var rows: [(g: Vec3, v: Double)] = []
        var s = InlineArray<9, Double>(repeating: 0)
        for a in anchorPositions.indices where anchorSupports(a, .aoa) && anchors[a].lastHeard >= since {
            let c = learner.angleCorrection(anchor: a)
            for (kind, v) in [(Observation.Kind.azimuth, c.azimuthVariance), (.elevation, c.elevationVariance)] {
                let o = Observation(kind: kind, anchor: a, anchorPosition: anchorPositions[a], toAnchor: rotations[a],
                                    value: 0, std: std, time: time)
                guard var g = o.predict(at: p)?.gradient else { continue }
                if d == 2 { g.z = 0 }
                for i in 0..<3 { for j in 0..<3 { s[i * 3 + j] += w * g[i] * g[j] } }
                rows.append((g, v))
            }
        }
        guard rows.count >= d, let inverse = BiasLearner.inverse(s, d) else { return nil }
        var c = InlineArray<9, Double>(repeating: 0)
        for (g, v) in rows {
            let u = Self.leastSquaresColumn(inverse, g, weight: w)
            for i in 0..<3 { for j in 0..<3 { c[i * 3 + j] += v * u[i] * u[j] } }
        }
        return c
    }
}
