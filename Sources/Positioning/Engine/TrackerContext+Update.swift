internal import Numerics

extension TrackerContext {
    /// The share of each innovation in the track's running NIS, disagreement and rejection share (an
    /// exponentially weighted mean over about 20 innovations).
    static let runningShare = 0.05
    /// The cap on one squared normalised innovation in the running NIS (σ²), so that one wild range
    /// does not decide it.
    static let nisCap = 100.0
    /// Innovations beyond this many σ count as disagreeing with the filter (`TagTrack.disagreement`).
    static let disagreementK = 3.0
    /// A range whose pair's probability of a blocked path is at least this counts as blocked in its
    /// anchor's health.
    static let blockedProbability: Float = 0.5
    /// A range teaches the bias learner only while its pair's running excess is below this many σ of
    /// the range: a pair whose ranges keep coming out long is blocked, not biased.
    static let teachableExcessK = 2.0

    /// `update(_:with:)` with observation `i` of a line: a range is applied without building its
    /// `Observation` (the same arithmetic), an angle through it.
    /// A range's outcome is counted in `health`, its anchor's.
    @inline(__always)
    func update(_ track: inout TagTrack, with line: LineObservations, _ i: Int, health: inout AnchorHealth) {
        let o = line.item(i)
        guard o.kind == .range else { return update(&track, with: line[i]) }
        guard track.isPlaced,
              let inn = track.placedFilter.rangeInnovation(value: o.value, std: o.std, anchor: line.anchorPosition) else {
            return
        }
        let e = update(&track, innovation: inn, kind: .range, anchor: line.anchor, value: o.value, std: o.std,
                       removedBias: o.removedBias)
        health.tested(normalisedInnovation: e, rejected: e > config.rejectK,
                      blocked: track.anchors[line.anchor].nlos.probability >= Self.blockedProbability)
    }

    /// One robust scalar update: Huber-weighted, with a tighter threshold for ranges measured longer
    /// than predicted (NLOS), never a hard gate that could lock the filter out (a run of rejections
    /// triggers re-initialisation instead).
    func update(_ track: inout TagTrack, with o: Observation) {
        guard let inn = track.innovation(o) else { return }
        update(&track, innovation: inn, kind: o.kind, anchor: o.anchor, value: o.value, std: o.std,
               removedBias: o.removedBias)
    }

    /// The robust update with an observation's innovation (see `update(_:with:)`). Returns the
    /// normalised innovation `|ν| / √S`.
    @inline(__always) @discardableResult
    private func update(_ track: inout TagTrack, innovation inn: (residual: Double, variance: Double, gradient: Vec3),
                        kind: Observation.Kind, anchor: Int, value: Double, std: Double, removedBias: Double) -> Double {
        // NLOS, in two parts. The pair's hypotheses (`PairNLOS`: line of sight or blocked, with the
        // blocked path's excess) shift the residual by the expected excess and add its uncertainty;
        // they remember a blockage for as long as it lasts. The pair's running excess (an EWMA of its
        // innovations, ranges persistently longer than predicted) adds `nlosVarianceScale` × its
        // square at once, before the hypotheses are sure; it fades within a few lines. The hypotheses
        // see the innovation variance scaled by the running NIS (when above 1): ranges noisier than
        // their σ must not pass for blocked paths, whose shift alone would bias a tag at rest.
        var residual = inn.residual
        var nlosVariance = 0.0, excessVariance = 0.0
        // The pair's state is changed in a copy and stored back once, below: each change made through
        // `track.anchors[anchor]` tested the array's buffer for uniqueness again.
        var pair = track.anchors[anchor]
        // The pair's running excess before this range (it is taught the range below).
        let excess = kind == .range && nlosIdentifiable ? Double(pair.excess) : 0
        if kind == .range && nlosIdentifiable {
            let c = pair.nlos.observe(inn.residual, variance: inn.variance * max(1, track.nis),
                                      interval: track.pairInterval, parameters: nlosParameters)
            residual -= c.shift
            if excess > 0 { excessVariance = config.nlosVarianceScale * excess * excess }
            nlosVariance = c.variance + excessVariance
        }
        // The running excess's variance is part of the measurement model, so the running NIS, which
        // tests the motion model (a stationary hint is overridden while it is high), normalises by it
        // too: a range that is long because its path is blocked says nothing about whether the tag
        // moves. The hypotheses' correction is left out of it, so that ranges noisier than their σ
        // still raise it (and with it the reported covariance).
        let e = abs(inn.residual) / inn.variance.squareRoot()
        let en = abs(residual) / (inn.variance + nlosVariance).squareRoot()
        let share = Self.runningShare
        track.nis += share * (min(inn.residual * inn.residual / (inn.variance + excessVariance), Self.nisCap) - track.nis)
        track.disagreement += share * ((e > Self.disagreementK ? 1 : 0) - track.disagreement)
        track.rejectShare += share * ((e > config.rejectK ? 1 : 0) - track.rejectShare)
        track.updatesSinceInit += 1
        if e > config.rejectK {
            track.rejectRun += 1
            track.anchors[anchor] = pair
            return e
        }
        track.rejectRun = 0
        var r = std * std
        if kind == .range {
            r += nlosVariance
            pair.excess += Float(config.nlosMemory) * (Float(inn.residual) - pair.excess)
            if excess < Self.teachableExcessK * std, pair.nlos.probability < biasMaxBlockedProbability {
                pair.range = Float(value + removedBias)
            }
        } else if kind == .azimuth {
            pair.azimuth = Float(value + removedBias)
        } else {
            pair.elevation = Float(value + removedBias)
        }
        track.anchors[anchor] = pair
        let k = (kind == .range && residual > 0) ? config.nlosHuberK : config.huberK
        if en > k { r += (inn.variance + nlosVariance) * (en / k - 1) }
        track.placedFilter.update(residual: residual, gradient: inn.gradient, measurementVariance: r)
        return e
    }
}
