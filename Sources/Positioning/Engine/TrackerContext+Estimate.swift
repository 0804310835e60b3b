internal import Numerics

// What a line reports: a position (with what the learned biases and an undecided mirror add) or a
// proximity line.
extension TrackerContext {
    /// Emits the tag's position (or a proximity line while it cannot be placed) at most once per
    /// `outputInterval`, and marks an emitted position in the smoother's recording. (Nothing is
    /// returned: an optional `PositionEstimate` result was copied on every line, emitted or not.) The
    /// bias learner is only read; the learners are passed `inout` because a value taken from the
    /// caller's `inout` was copied on every line (about 60 instructions of `memcpy` and retains).
    @inline(__always)
    func emitIfDue(tag: String, track: inout TagTrack, ranging r: Ranging, anchorIndex a: Int, technology: Technology,
                   learners: inout SiteLearners, emit: (Output) -> Void) {
        let interval = outputInterval
        // A position is of the filter's time, which a late line does not move.
        let now = max(r.time, track.isPlaced ? track.placedFilter.time : .min)
        guard track.lastOutput == .min || now.saturatingSubtract(track.lastOutput) >= interval else { return }
        if track.isPlaced {
            track.lastOutput = now
            let reported = track.placedFilter.reported()
            var consider = considerUncertainty(anchors: track.anchors, at: reported.position, time: reported.time,
                                               learner: learners.bias)
            if !nlosIdentifiable { Self.add(blockedRangeUncertainty(recent: track.recent, filter: reported), to: &consider) }
            let estimate = makeEstimate(tag: tag, nis: track.nis, motion: track.motion, anchors: track.anchors,
                                        filter: reported, consider: consider, mirrorUndecided: track.mirrorUndecided)
            emit(.position(estimate))
            zoneHysteresis.update(estimate, inside: &track.zonesInside, emit: emit)
            learners.smoother?.markEmitted(tag: tag, estimate: estimate, consider: consider)
        } else if let d = r.distance, technology != .aoa {
            track.lastOutput = r.time
            var azimuth: Double? = nil
            if case .angles(let az?, _)? = r.direction { azimuth = az }
            if case .vector(let v)? = r.direction { azimuth = atan2(v.y, v.x) }
            let anchor = site.anchors[a]
            emit(.proximity(site: site.id, tag: tag, anchor: anchor.id, distance: max(0, d - anchor.rangeBias),
                            azimuth: azimuth, time: r.time))
        }
    }

    func makeEstimate(tag: String, track: TagTrack, filter f: TagFilter, learner: BiasLearner) -> PositionEstimate {
        var f = f
        let reported = f.reported()
        var consider = considerUncertainty(anchors: track.anchors, at: reported.position, time: reported.time,
                                           learner: learner)
        if !nlosIdentifiable { Self.add(blockedRangeUncertainty(recent: track.recent, filter: reported), to: &consider) }
        return makeEstimate(tag: tag, nis: track.nis, motion: track.motion, anchors: track.anchors, filter: reported,
                            consider: consider, mirrorUndecided: track.mirrorUndecided)
    }

    /// Adds the consider covariance `c` (nil: nothing) to `sum` (nil: none yet).
    static func add(_ c: InlineArray<9, Double>?, to sum: inout InlineArray<9, Double>?) {
        guard let c else { return }
        guard var s = sum else { sum = c; return }
        for i in 0..<9 { s[i] += c[i] }
        sum = s
    }

    /// The estimate from the parts of a track it reports (no copy of the track or of its filter).
    /// `consider` is what the learned biases' errors and, on a four-anchor 3-D site, a blocked range
    /// add (`biasUncertainty`, `blockedRangeUncertainty`), nil for nothing;
    /// `mirrorUndecided` adds the image through the anchors' plane (`addMirror`).
    func makeEstimate(tag: String, nis: Double, motion: MotionState, anchors: [AnchorState],
                      filter f: TagFilter.Reported, consider: InlineArray<9, Double>?,
                      mirrorUndecided: Bool) -> PositionEstimate {
        let since = f.time.saturatingSubtract(anchorWindow)
        let three = site.dimensions == 3
        // Reported covariance: the filter's, scaled by the running NIS when the innovations are larger
        // than the filter predicts (errors its model does not hold, such as NLOS that leaks into a
        // stationary tag's average, or ranges noisier than their σ). The state is not changed.
        let s = max(1, nis)
        var estimate = PositionEstimate(
            site: site.id, tag: tag, position: f.position, velocity: f.velocity,
            covXX: s * f.xx, covXY: s * f.xy, covYY: s * f.yy,
            covXZ: three ? s * f.xz : 0, covYZ: three ? s * f.yz : 0, covZZ: three ? s * f.zz : 0,
            anchors: TagTrack.anchorsHeard(anchors, since: since), motion: motion, time: f.time)
        // Plus what the errors of the applied learned biases add, which averaging does not remove.
        if let consider { estimate.addConsider(consider, dimensions: site.dimensions) }
        if mirrorUndecided { addMirror(to: &estimate) }
        return estimate
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
