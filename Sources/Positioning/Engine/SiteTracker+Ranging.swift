internal import Numerics

extension SiteTracker {
    /// Validates one ranging line and hands it to the tag's track, updated in place.
    mutating func handleRanging(_ r: Ranging, emit: (Output) -> Void) throws(EngineRejection) {
        guard let a = context.anchorNumber(r.anchor) else { throw .unknownAnchor(site: site.id, anchor: r.anchor) }
        let tech: Technology
        if let t = r.technology {
            guard context.anchorSupports(a, t) else {
                throw .unsupportedTechnology(anchor: r.anchor, technology: t)
            }
            tech = t
        } else {
            // The anchor's first technology; an anchor without any supports none.
            guard !context.anchorTechnologies[a].isEmpty else {
                throw .unsupportedTechnology(anchor: r.anchor, technology: .uwb)
            }
            tech = context.anchorTechnology[a]
        }
        // Disjoint stored properties: the track is modified in place while the learner and the
        // smoother are modified beside it and the context is read.
        var number = tracks.number(of: r.tag)
        if number == nil {
            try admitNewTag()
            number = tracks.insert(r.tag, TagTrack(anchorCount: context.anchorPositions.count, time: r.time,
                                                   config: context.config))
        }
        if let late = context.ranging(r, anchorIndex: a, technology: tech, track: &tracks.tracks[number!],
                                      learner: &learnedBias, smoother: &smoother, health: &anchorHealth[a],
                                      emit: emit) {
            throw .late(seconds: Double(late) * 1e-9, limit: context.config.maxLateness)
        }
    }
}

extension TrackerContext {
    /// Turns one ranging line into scalar observations (bias removed, directions outside the field of
    /// view dropped), feeds the tag's filter, and emits a position or, when the tag cannot be placed,
    /// a proximity line. A line older than the tag's filter is applied at the filter's time; one more
    /// than `maxLateness` older changes nothing, and its lateness (ns) is returned.
    func ranging(_ r: Ranging, anchorIndex a: Int, technology tech: Technology, track: inout TagTrack,
                 learner: inout BiasLearner, smoother: inout TrajectorySmoother?, health: inout AnchorHealth,
                 emit: (Output) -> Void) -> Nanoseconds? {
        if let t = track.filter?.time, t.saturatingSubtract(r.time) > maxLateness { return t.saturatingSubtract(r.time) }
        health.lines += 1
        health.firstHeard = min(health.firstHeard, r.time)
        health.lastHeard = max(health.lastHeard, r.time)
        var observations = LineObservations(anchor: a, anchorPosition: anchorPositions[a], time: r.time)
        makeObservations(r, anchorIndex: a, technology: tech, learnedBias: learner.bias(anchor: a, technology: tech),
                         angles: tech == .aoa ? learner.angleCorrection(anchor: a) : AngleCorrection(),
                         into: &observations)
        // Errors of one anchor-tag pair are correlated over `correlationTime` (multipath changes as the
        // tag moves): measurements closer together than that carry less than independent information,
        // so their variance is inflated by correlationTime / interval.
        let previous = track.anchors[a].lastHeard
        track.pairInterval = previous == .min ? 0 : max(0, r.time.seconds(since: previous))
        if previous != .min, config.correlationTime > 0 {
            let interval = max(r.time.seconds(since: previous), 1e-4)
            let inflation = (max(1, config.correlationTime / interval)).squareRoot()
            observations.scaleStd(by: inflation)
        }
        track.lastSeen = max(track.lastSeen, r.time)
        track.anchors[a].lastHeard = r.time
        track.anchors[a].session = .active
        for i in 0..<observations.count { track.recent.append(observations, i) }

        if track.filter == nil {
            initialise(&track, tag: r.tag, time: r.time, smoother: &smoother)
        } else {
            let placed = track.filter!.positionTrace() < config.biasMaxPositionStd * config.biasMaxPositionStd
            let held = predict(&track, to: r.time)
            if smoother == nil {
                applyLine(observations, to: &track, time: r.time, tag: r.tag, placed: placed, learner: &learner,
                          smoother: &smoother, health: &health)
            } else {
                // The prior is copied only for the smoother: a `TagFilter` is 352 bytes (a `memcpy`).
                let prior = track.filter!
                if applyLine(observations, to: &track, time: r.time, tag: r.tag, placed: placed, learner: &learner,
                             smoother: &smoother, health: &health) {
                    smoother!.record(tag: r.tag, prior: prior, posterior: track.filter!, held: held, newSegment: false)
                }
            }
        }
        emitIfDue(tag: r.tag, track: &track, ranging: r, anchorIndex: a, technology: tech, learner: &learner,
                  smoother: &smoother,
                  emit: emit)
        return nil
    }

    /// Updates a placed tag's predicted filter with a line's observations, teaches the bias learner,
    /// and re-places the tag when the filter diverged. Returns true when the filter was kept.
    @discardableResult
    func applyLine(_ observations: LineObservations, to track: inout TagTrack, time: Nanoseconds, tag: String,
                   placed: Bool, learner: inout BiasLearner,
                   smoother: inout TrajectorySmoother?, health: inout AnchorHealth) -> Bool {
        for i in 0..<observations.count { update(&track, with: observations, i, health: &health) }
        if resolveMirror(&track, time: time) { holdHeight(&track) }
        if placed { teachBiases(&track, time: time, learner: &learner) }
        if placed, learner.angleBase != nil { teachAngleBiases(&track, time: time, learner: &learner) }
        guard track.rejectRun >= config.divergenceRun
            || ((track.disagreement > config.divergenceShare || track.rejectShare > config.rejectedShare)
                && track.updatesSinceInit >= 2 * RecentObservations.capacity)
            || !isPlausible(track.filter!.position, track.filter!.velocity) else { return true }
        initialise(&track, tag: tag, time: time, smoother: &smoother)
        // A filter that cannot be re-placed and has gone where no tag can be is dropped: the tag is
        // "distance only" until multilateration places it again.
        if let f = track.filter, !isPlausible(f) || track.rejectRun >= 4 * config.divergenceRun {
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

    /// Places (or re-places) a tag by multilateration over its recent observations.
    func initialise(_ track: inout TagTrack, tag: String, time: Nanoseconds, smoother: inout TrajectorySmoother?) {
        let since = time.saturatingSubtract(Nanoseconds(saturatingSeconds: config.initWindow))
        let obs = track.recent.observations(since: since, positions: anchorPositions, rotations: rotations)
        // Every start below would be refused for the same reason (too few observations, anchors that
        // do not span): no fix, nothing changes. Most calls before a tag's first placement end here.
        if let need = placementAnchors, Self.rangeAnchorCount(obs, atLeast: need) < need { return }
        guard Multilateration.refusal(obs, dimensions: site.dimensions) == nil else { return }
        let site = site
        let solve = { (start: Vec3?) in
            try? Multilateration.solve(obs, dimensions: site.dimensions, height: site.tagHeight,
                                       initial: start, bounds: site.bounds)
        }
        // Starting points, in order: where the filter is (if it is plausible), the closed-form guess,
        // and the middle of the site at the mean tag height. The first plausible fix wins, so a
        // mirror solution above a plane of anchors is not taken when one inside the site exists.
        let b = site.bounds
        var starts: [Vec3?] = []
        if let f = track.filter, isInside(f.position) { starts.append(f.position) }
        starts.append(nil)
        var low = site.tagHeight ?? (b.min.z + 0.15 * (b.max.z - b.min.z))
        if let range = heightRange { low = range.clamping(low) }
        starts.append(Vec3(0.5 * (b.min.x + b.max.x), 0.5 * (b.min.y + b.max.y), low))
        if site.dimensions == 3, !obs.isEmpty {
            // Below the anchors that hear the tag: the basin of the lower of two mirror solutions.
            var c = Vec3.zero
            for o in obs { c = c + o.anchorPosition }
            c = (1 / Double(obs.count)) * c
            starts.append(Vec3(c.x, c.y, low))
        }
        var fixes = starts.compactMap(solve)
        if let plane = anchorPlane {
            // Anchors in one plane: each fix's image through it fits as well, and is a candidate too.
            fixes += fixes.compactMap { solve(plane.mirror(of: $0.position)) }
        }
        fixes = fixes.filter { isInside($0.position) }
        // With a height range, fixes outside it are taken only when there is no other.
        if heightRange != nil, fixes.contains(where: { isWithinHeightRange($0.position) }) {
            fixes.removeAll { !isWithinHeightRange($0.position) }
        }
        // Of the fixes that fit about equally well, the lowest: a tag below a plane of ceiling anchors
        // has a mirror image above it that fits the ranges just as well, and tags are carried low.
        guard let best = fixes.map(\.normalizedRMS).min() else { return }
        // Anchors in one plane: of a fix and its image, the one nearer the floor-to-ceiling and height
        // ranges, then the lower.
        guard let fix = fixes.filter({ $0.normalizedRMS <= 1.1 * best + 0.05 })
            .min(by: { a, b in
                let va = anchorPlane == nil ? 0 : heightViolation(a.position)
                let vb = anchorPlane == nil ? 0 : heightViolation(b.position)
                return va != vb ? va < vb : a.position.z < b.position.z
            }) else { return }
        var p = fix.position
        if site.dimensions == 2 { p.z = site.tagHeight ?? p.z }
        track.filter = TagFilter(position: p, covariance: fix.covariance, dimensions: site.dimensions,
                                 velocityStd: track.motion == .stationary ? 0.05 : config.initialVelocityStd,
                                 time: time)
        track.mirrorUndecided = placementUndecided(track.filter!)
        track.mirrorEvidence = 0
        track.mirrorSideAbove = (anchorPlane?.distance(p) ?? 0) >= 0
        if !track.mirrorUndecided { holdHeight(&track) }
        smoother?.record(tag: tag, prior: track.filter!, posterior: track.filter!, held: false, newSegment: true)
        track.nis = 1
        track.disagreement = 0
        track.rejectShare = 0
        track.rejectRun = 0
        track.updatesSinceInit = 0
    }

    /// The number of distinct anchors with a range in `obs`, or `need` when some observation is an
    /// angle (angles place with fewer anchors: `Multilateration.refusal` decides then). Counted in a
    /// bit mask for anchors 0–63, which a set would allocate for.
    static func rangeAnchorCount(_ obs: [Observation], atLeast need: Int) -> Int {
        var mask: UInt64 = 0, others = Set<Int>()
        for o in obs {
            guard o.kind == .range else { return need }
            if o.anchor < 64 { mask |= 1 << UInt64(o.anchor) } else { others.insert(o.anchor) }
        }
        return mask.nonzeroBitCount + others.count
    }

    /// True when the filter's state is physically possible: inside the site (with a margin) and slower
    /// than `maxSpeed`.
    func isPlausible(_ f: TagFilter) -> Bool { isPlausible(f.position, f.velocity) }

    /// `isPlausible` of a position (m) and velocity (m/s), without a copy of the filter.
    func isPlausible(_ position: Vec3, _ velocity: Vec3) -> Bool {
        isInside(position) && velocity.norm <= config.maxSpeed
    }

    /// True when `p` lies within the site's bounds grown horizontally by `boundsMargin` (at least 10 %
    /// of the site's size) and vertically by 0.5 m: tags are inside the building, between its floor
    /// and its ceiling, give or take the anchors' noise.
    @inline(__always)
    func isInside(_ p: Vec3) -> Bool {
        // The grown bounds are computed once (`insideLow`, `insideHigh`), as `b.min.x - mx` and so on.
        p.isFinite && p.x >= insideLow.x && p.x <= insideHigh.x && p.y >= insideLow.y
            && p.y <= insideHigh.y && p.z >= insideLow.z && p.z <= insideHigh.z
    }

    /// Propagates the tag's filter to `t` with its motion model; returns true when a stationary hint
    /// held the velocity at zero.
    func predict(_ track: inout TagTrack, to t: Nanoseconds) -> Bool {
        let stationary = track.motion == .stationary && track.nis < config.divergenceNIS / 2
        // Optional chaining reaches the filter in place, with one test of the optional each.
        let predicted: Void? = track.filter?.predict(to: t, accelerationNoise: stationary
                                                         ? config.stationaryAccelerationNoise
                                                         : config.movingAccelerationNoise)
        guard predicted != nil else { return false }
        if stationary { track.filter?.holdStill(velocityStd: 0.01) }
        return stationary
    }

    /// Emits the tag's position (or a proximity line while it cannot be placed) at most once per
    /// `outputInterval`, and marks an emitted position in the smoother's recording. (Nothing is
    /// returned: an optional `PositionEstimate` result was copied on every line, emitted or not.) The
    /// learner is only read; it is passed `inout` because a value taken from the caller's `inout` was
    /// copied on every line (about 60 instructions of `memcpy` and retains), emitted or not.
    @inline(__always)
    func emitIfDue(tag: String, track: inout TagTrack, ranging r: Ranging, anchorIndex a: Int, technology: Technology,
                   learner: inout BiasLearner, smoother: inout TrajectorySmoother?, emit: (Output) -> Void) {
        let interval = outputInterval
        // A position is of the filter's time, which a late line does not move.
        let now = max(r.time, track.filter?.time ?? .min)
        guard track.lastOutput == .min || now.saturatingSubtract(track.lastOutput) >= interval else { return }
        if track.filter != nil {
            track.lastOutput = now
            let reported = track.filter!.reported()
            let consider = considerUncertainty(anchors: track.anchors, at: reported.position, time: reported.time,
                                           learner: learner)
            let estimate = makeEstimate(tag: tag, nis: track.nis, motion: track.motion, anchors: track.anchors,
                                        filter: reported, consider: consider, mirrorUndecided: track.mirrorUndecided)
            emit(.position(estimate))
            zoneHysteresis.update(estimate, inside: &track.zonesInside, emit: emit)
            smoother?.markEmitted(tag: tag, estimate: estimate, consider: consider)
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
        return makeEstimate(tag: tag, nis: track.nis, motion: track.motion, anchors: track.anchors, filter: reported,
                            consider: considerUncertainty(anchors: track.anchors, at: reported.position,
                                                      time: reported.time, learner: learner),
                            mirrorUndecided: track.mirrorUndecided)
    }

    /// The estimate from the parts of a track it reports (no copy of the track or of its filter).
    /// `consider` is what the learned biases' errors add (`biasUncertainty`), nil for nothing;
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
