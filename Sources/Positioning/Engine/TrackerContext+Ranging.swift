internal import Numerics

extension TrackerContext {
    /// The shortest interval between two lines of a pair (seconds) in their σ's inflation for
    /// correlated errors: lines that come together are inflated as much as ones 0.1 ms apart.
    static let minPairInterval = 1e-4
    /// A stationary hint holds the velocity while the running NIS is below this share of
    /// `divergenceNIS`: above it the tag seems to move, whatever the hint says.
    static let stationaryNISShare = 0.5
    /// The velocity σ (m/s) a stationary hint holds a filter at (`TagFilter.holdStill`).
    static let heldVelocityStd = 0.01
    /// Innovations since the last placement, in `RecentObservations.capacity`s, before the running
    /// shares (disagreement, rejections) may re-place a tag: they start from zero.
    static let divergenceWarmup = 2
    /// A re-placement that left the filter where no tag can be, or a run of rejections this many
    /// times `divergenceRun` long, drops the filter: the tag waits for multilateration instead.
    static let dropRunFactor = 4

    /// Turns one ranging line into scalar observations (bias removed, directions outside the field of
    /// view dropped), feeds the tag's filter, and emits a position or, when the tag cannot be placed,
    /// a proximity line. A line older than the tag's filter is applied at the filter's time; one more
    /// than `maxLateness` older changes nothing, and its lateness (ns) is returned.
    func ranging(_ r: Ranging, anchorIndex a: Int, technology tech: Technology, track: inout TagTrack,
                 learners: inout SiteLearners, emit: (Output) -> Void) -> Nanoseconds? {
        if track.isPlaced, case let t = track.placedFilter.time, t.saturatingSubtract(r.time) > maxLateness {
            return t.saturatingSubtract(r.time)
        }
        learners.anchorHealth[a].heard(at: r.time)
        var observations = LineObservations(anchor: a, anchorPosition: anchorPositions[a], time: r.time)
        makeObservations(r, anchorIndex: a, technology: tech, learnedBias: learners.bias.bias(anchor: a, technology: tech),
                         angles: tech == .aoa ? learners.bias.angleCorrection(anchor: a) : AngleCorrection(),
                         into: &observations)
        // Errors of one anchor-tag pair are correlated over `correlationTime` (multipath changes as the
        // tag moves): measurements closer together than that carry less than independent information,
        // so their variance is inflated by correlationTime / interval.
        let previous = track.anchors[a].lastHeard
        track.pairInterval = previous == .min ? 0 : max(0, r.time.seconds(since: previous))
        if previous != .min, config.correlationTime > 0 {
            let interval = max(r.time.seconds(since: previous), Self.minPairInterval)
            let inflation = (max(1, config.correlationTime / interval)).squareRoot()
            observations.scaleStd(by: inflation)
        }
        track.lastSeen = max(track.lastSeen, r.time)
        track.anchors[a].heard(at: r.time)
        for i in 0..<observations.count { track.recent.append(observations, i) }

        if !track.isPlaced {
            initialise(&track, tag: r.tag, time: r.time, smoother: &learners.smoother)
        } else {
            let placed = track.placedFilter.positionTrace() < config.biasMaxPositionStd * config.biasMaxPositionStd
            let held = predict(&track, to: r.time)
            if learners.smoother == nil {
                applyLine(observations, to: &track, time: r.time, tag: r.tag, placed: placed, learners: &learners)
            } else {
                // The prior is copied only for the smoother: a `TagFilter` is 352 bytes (a `memcpy`).
                let prior = track.placedFilter
                if applyLine(observations, to: &track, time: r.time, tag: r.tag, placed: placed, learners: &learners) {
                    learners.smoother!.record(tag: r.tag, prior: prior, posterior: track.placedFilter, held: held,
                                              newSegment: false)
                }
            }
        }
        emitIfDue(tag: r.tag, track: &track, ranging: r, anchorIndex: a, technology: tech, learners: &learners,
                  emit: emit)
        return nil
    }

    /// Updates a placed tag's predicted filter with a line's observations, teaches the bias learner,
    /// and re-places the tag when the filter diverged. Returns true when the filter was kept.
    @discardableResult
    func applyLine(_ observations: LineObservations, to track: inout TagTrack, time: Nanoseconds, tag: String,
                   placed: Bool, learners: inout SiteLearners) -> Bool {
        for i in 0..<observations.count {
            update(&track, with: observations, i, health: &learners.anchorHealth[observations.anchor])
        }
        if resolveMirror(&track, time: time) { holdHeight(&track) }
        if placed { teachBiases(&track, time: time, learner: &learners.bias) }
        if placed, learners.bias.angleBase != nil { teachAngleBiases(&track, time: time, learner: &learners.bias) }
        guard track.rejectRun >= config.divergenceRun
            || ((track.disagreement > config.divergenceShare || track.rejectShare > config.rejectedShare)
                && track.updatesSinceInit >= Self.divergenceWarmup * RecentObservations.capacity)
            || !isPlausible(track.placedFilter.position, track.placedFilter.velocity) else { return true }
        initialise(&track, tag: tag, time: time, smoother: &learners.smoother)
        // A filter that cannot be re-placed and has gone where no tag can be is dropped: the tag is
        // "distance only" until multilateration places it again.
        if track.isPlaced, !isPlausible(track.placedFilter) || track.rejectRun >= Self.dropRunFactor * config.divergenceRun {
            track.filter = nil
            track.rejectRun = 0
        }
        return false
    }

    /// Scalar observations of one ranging line, appended to `out` (made for anchor `a` and the
    /// line's time; filled in place rather than returned, which would copy it). `learnedBias` is the
    /// learner's bias for the anchor and technology (the learner itself, passed by value, was copied).
    func makeObservations(_ r: Ranging, anchorIndex a: Int, technology: Technology,
                          learnedBias learned: Double, angles: AngleCorrection,
                          into out: inout LineObservations) {
        // Fields are read through `site.anchors[a]` (in place), not from a copy of the anchor.
        // Angle-of-arrival locators measure no distance: one on their line is not used (nor reported
        // as a proximity line, `emitIfDue`).
        if let d = r.distance, technology != .aoa {
            let std = Anchor.rangeStd(line: r.std, calibrated: site.anchors[a].rangeStd, technology: technology)
            out.append(.range, value: d - site.anchors[a].rangeBias - learned, std: std, removedBias: learned)
        }
        guard let dir = r.direction, site.anchors[a].orientation != nil else { return }
        var az: Double?, el: Double?
        switch dir {
        case .angles(let a0, let e0): az = a0; el = e0
        case .vector(let v): az = atan2(v.y, v.x); el = atan2(v.z, (v.x * v.x + v.y * v.y).squareRoot())
        }
        // Field of view: the angle from the boresight, from whichever angles are known.
        if let fov = site.anchors[a].fieldOfView {
            let off = acos(max(-1, min(1, cos(az ?? 0) * cos(el ?? 0))))
            guard off <= fov / 2 else { return }
        }
        let std = technology.defaultAngleStd
        out.toAnchor = rotations[a]
        guard technology == .aoa else {
            if let az { out.append(.azimuth, value: az, std: std) }
            if let el { out.append(.elevation, value: el, std: std) }
            return
        }
        // The anchor's learned offsets removed, their uncertainty added to the σ (`angleCorrection`).
        if let az {
            out.append(.azimuth, value: Observation.wrapAngle(az - angles.azimuth),
                       std: (std * std + angles.azimuthVariance).squareRoot(), removedBias: angles.azimuth)
        }
        if let el {
            out.append(.elevation, value: el - angles.elevation,
                       std: (std * std + angles.elevationVariance).squareRoot(), removedBias: angles.elevation)
        }
    }

    /// Propagates the tag's filter to `t` with its motion model; returns true when a stationary hint
    /// held the velocity at zero.
    func predict(_ track: inout TagTrack, to t: Nanoseconds) -> Bool {
        let stationary = track.motion == .stationary && track.nis < config.divergenceNIS * Self.stationaryNISShare
        guard track.isPlaced else { return false }
        track.placedFilter.predict(to: t, accelerationNoise: stationary
                                   ? config.stationaryAccelerationNoise
                                   : config.movingAccelerationNoise)
        if stationary { track.placedFilter.holdStill(velocityStd: Self.heldVelocityStd) }
        return stationary
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
