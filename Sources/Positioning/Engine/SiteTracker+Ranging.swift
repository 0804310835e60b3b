internal import Numerics

extension SiteTracker {
    /// Turns one ranging line into scalar observations (bias removed, directions outside the field of
    /// view dropped), feeds the tag's filter, and emits a position or, when the tag cannot be placed,
    /// a proximity line.
    mutating func handleRanging(_ r: Ranging, emit: (Output) -> Void) throws(EngineRejection) {
        guard let a = site.anchorIndex[r.anchor] else { throw .unknownAnchor(site: site.id, anchor: r.anchor) }
        let anchor = site.anchors[a]
        let tech = r.technology ?? anchor.technologies.first ?? .uwb
        guard anchor.technologies.contains(tech) else {
            throw .unsupportedTechnology(anchor: anchor.id, technology: tech)
        }
        var observations = makeObservations(r, anchorIndex: a, anchor: anchor, technology: tech)

        var track = tracks[r.tag] ?? TagTrack(anchorCount: site.anchors.count, time: r.time)
        // Errors of one anchor-tag pair are correlated over `correlationTime` (multipath changes as the
        // tag moves): measurements closer together than that carry less than independent information,
        // so their variance is inflated by correlationTime / interval.
        let previous = track.lastHeard[a]
        if previous != .min, config.correlationTime > 0 {
            let interval = max(Double(r.time - previous) * 1e-9, 1e-4)
            let inflation = (max(1, config.correlationTime / interval)).squareRoot()
            for i in observations.indices { observations[i].std *= inflation }
        }
        track.lastSeen = max(track.lastSeen, r.time)
        track.lastHeard[a] = r.time
        track.pairs[a] = .active
        for o in observations { track.recent.append(o) }

        if track.filter == nil {
            initialise(&track, tag: r.tag, time: r.time)
        } else {
            let f = track.filter!
            let placed = f.cov(0, 0) + f.cov(1, 1) + f.cov(2, 2)
                < config.biasMaxPositionStd * config.biasMaxPositionStd
            let redundant = track.anchorsHeard(since: r.time - Nanoseconds(config.anchorWindow * 1e9))
                >= site.dimensions + 2
            let held = predict(&track, to: r.time)
            let prior = track.filter!
            for o in observations { update(&track, with: o) }
            if placed && redundant { teachBiases(&track, time: r.time) }
            if track.rejectRun >= config.divergenceRun
                || (track.disagreement > config.divergenceShare
                    && track.updatesSinceInit >= 2 * RecentObservations.capacity) {
                initialise(&track, tag: r.tag, time: r.time)
            } else {
                smoother?.record(tag: r.tag, prior: prior, posterior: track.filter!, held: held, newSegment: false)
            }
        }
        if let p = emitIfDue(tag: r.tag, track: &track, ranging: r, anchor: anchor, emit: emit) {
            smoother?.markEmitted(tag: r.tag, estimate: p)
        }
        tracks[r.tag] = track
    }

    /// Scalar observations of one ranging line.
    func makeObservations(_ r: Ranging, anchorIndex a: Int, anchor: Anchor, technology: Technology) -> [Observation] {
        var out: [Observation] = []
        if let d = r.distance {
            let stds = [r.std, anchor.rangeStd].compactMap { $0 }
            let std = stds.max() ?? technology.defaultRangeStd
            let learned = learnedBias.bias(anchor: a, technology: technology)
            var o = Observation(kind: .range, anchor: a, anchorPosition: anchor.position,
                                value: d - anchor.rangeBias - learned, std: std, time: r.time)
            o.removedBias = learned
            out.append(o)
        }
        guard let dir = r.direction, anchor.orientation != nil else { return out }
        var az: Double?, el: Double?
        switch dir {
        case .angles(let a0, let e0): az = a0; el = e0
        case .vector(let v): az = atan2(v.y, v.x); el = atan2(v.z, (v.x * v.x + v.y * v.y).squareRoot())
        }
        // Field of view: the angle from the boresight, from whichever angles are known.
        if let fov = anchor.fieldOfView {
            let off = acos(max(-1, min(1, cos(az ?? 0) * cos(el ?? 0))))
            guard off <= fov / 2 else { return out }
        }
        let std = technology.defaultAngleStd
        if let az {
            out.append(Observation(kind: .azimuth, anchor: a, anchorPosition: anchor.position,
                                   toAnchor: rotations[a], value: az, std: std, time: r.time))
        }
        if let el {
            out.append(Observation(kind: .elevation, anchor: a, anchorPosition: anchor.position,
                                   toAnchor: rotations[a], value: el, std: std, time: r.time))
        }
        return out
    }

    /// Places (or re-places) a tag by multilateration over its recent observations.
    mutating func initialise(_ track: inout TagTrack, tag: String, time: Nanoseconds) {
        let since = time - Nanoseconds(config.initWindow * 1e9)
        let obs = track.recent.observations(since: since, site: site, rotations: rotations)
        let site = self.site
        let solve = { (start: Vec3?) in
            try? Multilateration.solve(obs, dimensions: site.dimensions, height: site.tagHeight,
                                       initial: start, bounds: site.bounds)
        }
        guard let fix = track.filter.flatMap({ solve($0.position) }) ?? solve(nil) else { return }
        var p = fix.position
        if site.dimensions == 2 { p.z = site.tagHeight ?? p.z }
        track.filter = TagFilter(position: p, covariance: fix.covariance, dimensions: site.dimensions,
                                 velocityStd: track.motion == .stationary ? 0.05 : config.initialVelocityStd,
                                 time: time)
        smoother?.record(tag: tag, prior: track.filter!, posterior: track.filter!, held: false, newSegment: true)
        track.nis = 1
        track.disagreement = 0
        track.rejectRun = 0
        track.updatesSinceInit = 0
    }

    /// One robust scalar update: Huber-weighted, with a tighter threshold for ranges measured longer
    /// than predicted (NLOS), never a hard gate that could lock the filter out (a run of rejections
    /// triggers re-initialisation instead).
    /// Propagates the tag's filter to `t` with its motion model; returns true when a stationary hint
    /// held the velocity at zero.
    func predict(_ track: inout TagTrack, to t: Nanoseconds) -> Bool {
        guard var f = track.filter else { return false }
        let stationary = track.motion == .stationary && track.nis < config.divergenceNIS / 2
        f.predict(to: t, accelerationNoise: stationary ? config.stationaryAccelerationNoise
                                                       : config.movingAccelerationNoise)
        if stationary { f.holdStill(velocityStd: 0.01) }
        track.filter = f
        return stationary
    }

    func update(_ track: inout TagTrack, with o: Observation) {
        guard var f = track.filter else { return }
        guard let inn = f.innovation(o) else { return }
        let e = abs(inn.residual) / inn.variance.squareRoot()
        track.nis += 0.05 * (min(e * e, 100) - track.nis)
        track.disagreement += 0.05 * ((e > 3 ? 1 : 0) - track.disagreement)
        track.updatesSinceInit += 1
        if e > config.rejectK {
            track.rejectRun += 1
            track.filter = f
            return
        }
        track.rejectRun = 0
        if o.kind == .range { track.ranges[o.anchor] = Float(o.value + o.removedBias) }
        let k = (o.kind == .range && inn.residual > 0) ? config.nlosHuberK : config.huberK
        var r = o.std * o.std
        if e > k { r += inn.variance * (e / k - 1) }
        f.update(residual: inn.residual, gradient: inn.gradient, measurementVariance: r)
        track.filter = f
    }

    /// Emits the tag's position (or a proximity line while it cannot be placed) at most once per
    /// `outputInterval`.
    @discardableResult
    func emitIfDue(tag: String, track: inout TagTrack, ranging r: Ranging, anchor: Anchor,
                   emit: (Output) -> Void) -> PositionEstimate? {
        let interval = Nanoseconds(config.outputInterval * 1e9)
        guard track.lastOutput == .min || r.time - track.lastOutput >= interval else { return nil }
        if let f = track.filter {
            track.lastOutput = r.time
            let estimate = makeEstimate(tag: tag, track: track, filter: f)
            emit(.position(estimate))
            return estimate
        } else if let d = r.distance {
            track.lastOutput = r.time
            var azimuth: Double? = nil
            if case .angles(let az?, _)? = r.direction { azimuth = az }
            if case .vector(let v)? = r.direction { azimuth = atan2(v.y, v.x) }
            emit(.proximity(site: site.id, tag: tag, anchor: anchor.id, distance: max(0, d - anchor.rangeBias),
                            azimuth: azimuth, time: r.time))
        }
        return nil
    }

    func makeEstimate(tag: String, track: TagTrack, filter f: TagFilter) -> PositionEstimate {
        let since = f.time - Nanoseconds(config.anchorWindow * 1e9)
        let three = site.dimensions == 3
        return PositionEstimate(
            site: site.id, tag: tag, position: f.position, velocity: f.velocity,
            covXX: f.cov(0, 0), covXY: f.cov(0, 1), covYY: f.cov(1, 1),
            covXZ: three ? f.cov(0, 2) : 0, covYZ: three ? f.cov(1, 2) : 0, covZZ: three ? f.cov(2, 2) : 0,
            anchors: track.anchorsHeard(since: since), motion: track.motion, time: f.time)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
