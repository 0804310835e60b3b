import Testing
import Numerics
@testable import Positioning
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 20 m × 15 m 2-D hall: four ceiling UWB anchors (one oriented, FOV 120°, facing +x), one dual-tech
/// anchor, one Channel Sounding anchor with a calibrated bias and noise.
private func hall(dimensions: Int = 2) -> Site {
    let anchors = [
        Anchor(id: "A0", position: Vec3(0, 0, 2.5), technologies: [.uwb],
               orientation: Orientation(yaw: 0, pitch: 0, roll: 0), fieldOfView: 2 * Double.pi / 3),
        Anchor(id: "A1", position: Vec3(20, 0, 2.5), technologies: [.uwb], rangeBias: 0.12),
        Anchor(id: "A2", position: Vec3(20, 15, 2.5), technologies: [.uwb, .cs]),
        Anchor(id: "A3", position: Vec3(0, 15, 2.5), technologies: [.uwb], rangeBias: -0.05, rangeStd: 0.07),
        Anchor(id: "A4", position: Vec3(10, 7.5, 3.0), technologies: [.cs], rangeBias: 0.3, rangeStd: 0.2),
    ]
    let maxZ = dimensions == 3 ? 5.0 : 3.0
    return Site(id: "hall", name: "Test hall", dimensions: dimensions, tagHeight: dimensions == 3 ? nil : 1.1,
                bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(20, 15, maxZ)), anchors: anchors, zones: [])
}

/// A config with no dropouts or suspensions unless a test asks for them, so counts are easy to reason about.
private func quietConfig(tags: Int = 4, duration: Double = 30, seed: UInt64 = 7) -> SimulationConfig {
    var c = SimulationConfig(tags: tags, duration: duration, seed: seed)
    c.dropoutRate = 0; c.suspendRate = 0
    return c
}

private func rangings(_ events: [Event]) -> [Ranging] {
    events.compactMap { if case .ranging(let r) = $0 { r } else { nil } }
}

/// Runs the stream, handing each ranging to `check` together with the tag's exact true position.
private func eachRanging(_ site: Site, _ config: SimulationConfig, _ check: (Ranging, Vec3) -> Void) {
    let sim = Simulator(site: site, config: config)
    let tagIndex = Dictionary(uniqueKeysWithValues: sim.tagIDs.enumerated().map { ($1, $0) })
    var stream = sim.makeStream()
    while let item = stream.next() {
        if case .event(.ranging(let r)) = item {
            check(r, stream.truePosition(tag: tagIndex[r.tag]!, at: r.time))
        }
    }
}

@Suite struct SimulatorTests {
    @Test func sameSeedSameOutputDifferentSeedDifferent() {
        var config = SimulationConfig(tags: 3, duration: 20, seed: 42, nlosProbability: 0.2, outlierProbability: 0.02)
        config.dropoutRate = 1; config.suspendRate = 1
        let a = Simulator(site: hall(), config: config).run()
        let b = Simulator(site: hall(), config: config).run()
        #expect(a.events == b.events)
        #expect(a.truth == b.truth)
        #expect(a.events.count > 1000)
        config.seed = 43
        let c = Simulator(site: hall(), config: config).run()
        #expect(a.events != c.events)
        #expect(a.truth != c.truth)
    }

    @Test func itemsComeInTimeOrderInsideTheRun() {
        var config = SimulationConfig(tags: 6, duration: 20, seed: 3, nlosProbability: 0.1)
        config.dropoutRate = 2; config.suspendRate = 2
        let sim = Simulator(site: hall(), config: config)
        var last = Nanoseconds.min, count = 0
        let end = config.startTime + 20_000_000_000
        for item in sim.makeStream() {
            #expect(item.time >= last)
            #expect(item.time >= config.startTime && item.time < end)
            last = item.time; count += 1
        }
        #expect(count > 3000)   // ~3000 ranges (less dropouts) + 1200 truth samples
        #expect(sim.tagIDs == ["T0", "T1", "T2", "T3", "T4", "T5"])
    }

    /// With a gateway batch, the run's events are the same, each anchor's in time order, delivered at
    /// its gateway's sends: a tag's lines from different anchors come out of time order, by less than
    /// one batch, and never before they were measured.
    @Test func gatewayBatchesDeliverTheSameEventsOutOfOrder() {
        var config = SimulationConfig(tags: 6, duration: 20, seed: 3, nlosProbability: 0.1)
        config.dropoutRate = 2; config.suspendRate = 2
        let inOrder = Simulator(site: hall(), config: config).run().events
        config.gatewayBatch = 0.25
        var delivered: [Event] = []
        Simulator(site: hall(), config: config).generate(into: { delivered.append($0) })
        #expect(delivered.count == inOrder.count)
        #expect(Set(delivered.map { "\($0)" }) == Set(inOrder.map { "\($0)" }))
        var lastByAnchor: [String: Nanoseconds] = [:], newest = Nanoseconds.min, backwards = 0
        for e in delivered {
            if case .ranging(let r) = e {
                #expect(r.time >= lastByAnchor[r.anchor] ?? .min, "anchor \(r.anchor) out of order")
                lastByAnchor[r.anchor] = r.time
            }
            if e.time < newest {
                backwards += 1
                #expect(newest - e.time < 250_000_000)
            }
            newest = max(newest, e.time)
        }
        #expect(backwards > 100, "\(backwards) events delivered after a later one")
    }

    @Test func noiseFreeRangesAreTrueDistancePlusBias() {
        var config = quietConfig()
        config.noiseScale = 0
        config.rangeResolution = 0
        config.angleResolution = 0
        let site = hall()
        var count = 0
        eachRanging(site, config) { r, truth in
            let anchor = site.anchor(r.anchor)!
            let expected = (truth - anchor.position).norm + anchor.rangeBias
            // Only float rounding separates the two: 1e-9 m is far below any noise in the model.
            #expect(abs(r.distance! - expected) < 1e-9)
            #expect(r.technology != nil && anchor.technologies.contains(r.technology!))
            #expect(r.std == (anchor.rangeStd ?? r.technology!.defaultRangeStd))
            count += 1
        }
        // 4 tags × 5 anchors × 5 Hz × 30 s, all in range in a 20 m hall.
        #expect(abs(Double(count) - 3000) < 60)
    }

    @Test func nlosShareMatchesProbability() {
        var config = quietConfig(tags: 5, duration: 60, seed: 11)
        config.noiseScale = 0
        config.rangeResolution = 0
        config.angleResolution = 0
        config.nlosProbability = 0.3
        let site = hall()
        var nlos = 0, total = 0
        eachRanging(site, config) { r, truth in
            let anchor = site.anchor(r.anchor)!
            let excess = r.distance! - (truth - anchor.position).norm - anchor.rangeBias
            if excess > 1e-9 {
                nlos += 1
                #expect(excess >= 0.2 - 1e-9 && excess <= 1.5 + 1e-9)
            } else {
                #expect(abs(excess) < 1e-9)
            }
            total += 1
        }
        // About 750 pair-episodes of ~10 ranges: the share's standard error is about 0.02, so ±0.06 is ~3σ.
        let share = Double(nlos) / Double(total)
        #expect(abs(share - 0.3) < 0.06, "NLOS share \(share)")
    }

    @Test func outliersKeepDistancesNonNegative() {
        var config = quietConfig(tags: 3, duration: 20, seed: 5)
        config.outlierProbability = 0.3
        let site = hall()
        var far = 0
        eachRanging(site, config) { r, truth in
            #expect(r.distance! >= 0)
            if abs(r.distance! - (truth - site.anchor(r.anchor)!.position).norm) > 2 { far += 1 }
        }
        #expect(far > 100)
    }

    @Test func directionsOnlyForOrientedUWBAnchorsInsideTheFieldOfView() {
        let site = hall()
        let a0 = site.anchor("A0")!
        let sigma = Technology.uwb.defaultAngleStd
        var seen = 0, rangedByA0 = 0
        eachRanging(site, quietConfig(tags: 6, duration: 30, seed: 9)) { r, truth in
            guard let direction = r.direction else {
                if r.anchor == "A0" { rangedByA0 += 1; #expect(!a0.seesDirection(truth - a0.position)) }
                return
            }
            #expect(r.anchor == "A0" && r.technology == .uwb)
            let toTag = truth - a0.position
            #expect(a0.seesDirection(toTag))
            let measured = a0.orientation!.toSite(direction.unitVector!)
            let angle = acos(Swift.max(-1, Swift.min(1, measured.dot(toTag.normalized!))))
            // Azimuth and elevation each carry σ of noise, so the angle is about Rayleigh(σ):
            // P(angle > 5σ) = e^-12.5 ≈ 4e-6 per direction.
            #expect(angle < 5 * sigma, "angle \(angle)")
            seen += 1
        }
        #expect(seen > 500)
        #expect(rangedByA0 > 0)   // tags behind A0's boresight range without a direction
    }

    @Test func motionHintsFollowStopsAndStarts() {
        let config = quietConfig(tags: 5, duration: 120, seed: 21)
        let (events, truth) = Simulator(site: hall(), config: config).run()
        var byTag: [String: [TruthSample]] = [:]
        for s in truth { byTag[s.tag, default: []].append(s) }
        var hints: [String: [(Nanoseconds, MotionState)]] = [:]
        for case .motion(_, let tag, let state, let t) in events { hints[tag, default: []].append((t, state)) }
        #expect(hints.count == 5)
        var stops = 0
        for (tag, list) in hints {
            #expect(list.first?.0 == config.startTime)  // every tag reports its state at the start
            for (a, b) in zip(list, list.dropFirst()) { #expect(a.1 != b.1) }  // states alternate
            for (t, state) in list.dropFirst() {
                // The hint comes 0.5 s after the change: the truth over the preceding 0.4 s shows it.
                let window = byTag[tag]!.filter { $0.time <= t && $0.time >= t - 400_000_000 }
                let spread = window.map { ($0.position - window[0].position).norm }.max()!
                if state == .stationary { #expect(spread == 0); stops += 1 } else { #expect(spread > 0.1) }
            }
        }
        #expect(stops >= 5)
    }

    @Test func truthStaysInsideTheBounds() {
        for dims in [2, 3] {
            let site = hall(dimensions: dims)
            let (_, truth) = Simulator(site: site, config: quietConfig(tags: 8, duration: 60)).run()
            #expect(truth.count == 8 * 600)
            for s in truth {
                #expect(site.bounds.contains(s.position))
                #expect(s.site == "hall")
                if dims == 2 { #expect(s.position.z == 1.1) } else { #expect(s.position.z >= 0.3 && s.position.z <= 4) }
            }
            if dims == 3 { #expect(Set(truth.map(\.position.z)).count > 100) }
        }
    }

    @Test func aSiteWithoutFloorSpaceStillFinishes() {
        // Zero-size bounds: every leg is 0 m long; legs last at least 0.5 s, so the run stays finite.
        var site = hall()
        site.bounds = Bounds(min: Vec3(5, 5, 0), max: Vec3(5, 5, 3))
        let (events, truth) = Simulator(site: site, config: quietConfig(tags: 2, duration: 10)).run()
        #expect(truth.count == 200 && truth.allSatisfy { $0.position == Vec3(5, 5, 1.1) })
        #expect(events.count > 400)
    }

    @Test func dropoutsAndSuspensionsSilenceTheirPairs() {
        var config = quietConfig(tags: 4, duration: 60, seed: 2)
        config.dropoutRate = 3; config.suspendRate = 3
        let events = Simulator(site: hall(), config: config).run().events
        var removedAt: [String: Nanoseconds] = [:], suspendedAt: [String: Nanoseconds] = [:]
        var removals = 0, suspensions = 0, resumes = 0
        for e in events {
            switch e {
            case .removed(_, let a, let t, let reason, let time):
                #expect(reason == .timeout)
                removedAt[a + "/" + t] = time; removals += 1
            case .session(_, let a, nil, .suspended, let time):
                #expect(suspendedAt[a] == nil); suspendedAt[a] = time; suspensions += 1
            case .session(_, let a, nil, .resumed, let time):
                #expect(time - suspendedAt[a]! >= 2_000_000_000)
                suspendedAt[a] = nil; resumes += 1
            case .ranging(let r):
                #expect(suspendedAt[r.anchor] == nil)
                if let t = removedAt.removeValue(forKey: r.anchor + "/" + r.tag) {
                    #expect(r.time - t >= 2_000_000_000)   // dropouts last at least 2 s
                }
            default: break
            }
        }
        #expect(removals > 20 && suspensions > 5 && resumes >= suspensions - 5)
    }

    @Test func gaussianDrawsHaveUnitVariance() {
        var rng = SeededRandom(seed: 99)
        let n = 100_000
        var sum = 0.0, sum2 = 0.0
        for _ in 0..<n { let g = rng.nextGaussian(); sum += g; sum2 += g * g }
        // Standard errors: mean 1/√n ≈ 0.003, variance √(2/n) ≈ 0.0045; tolerances are ~4σ.
        #expect(abs(sum / Double(n)) < 0.013)
        #expect(abs(sum2 / Double(n) - 1) < 0.02)
        var u = SeededRandom(seed: 1), v = SeededRandom(seed: 1), w = SeededRandom(seed: 1, stream: 1)
        let first = u.next()
        #expect(first == v.next() && first != w.next())
    }
}
