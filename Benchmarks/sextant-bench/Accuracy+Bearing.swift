import Numerics
import Positioning
import Wire

/// Section 4c of `accuracy`: a direction-only room. Four Bluetooth angle-of-arrival locators (`aoa`:
/// azimuth and elevation, no distance) in the corners of a 12 × 6 m room, each with a persistent
/// azimuth and elevation offset of 5–10° (random sign) and its own random noise of 3–5°. The engine
/// next to a textbook bearing EKF on the same input.
enum BearingAccuracy {
    static let site = Site(id: "aoa-room", name: "Direction-only room", dimensions: 2, tagHeight: 1.2,
                           bounds: Bounds(min: Vec3(0, 0, 0), max: Vec3(12, 6, 3)),
                           anchors: [(Vec3(0.2, 0.2, 2.7), Vec3(6, 3, 1.2)), (Vec3(11.8, 0.2, 2.7), Vec3(6, 3, 1.2)),
                                     (Vec3(11.8, 5.8, 2.7), Vec3(6, 3, 1.2)), (Vec3(0.2, 5.8, 2.7), Vec3(6, 3, 1.2))]
                               .enumerated().map { i, pair in
                                   let d = pair.1 - pair.0
                                   let yaw = atan2(d.y, d.x), pitch = atan2(-d.z, d.horizontalNorm)
                                   return Anchor(id: "L\(i + 1)", position: pair.0, technologies: [.aoa],
                                                 orientation: Orientation(yaw: yaw, pitch: pitch, roll: 0))
                               },
                           zones: [])

    static let rmseTarget = 0.7

    /// The simulated input: the simulator's noise-free bearings, plus each locator's offsets and noise.
    struct Input { var events: [Event]; var input: [UInt8]; var truth: [TruthSample] }

    static func simulate(_ size: SimulatedAccuracy.Size, seed: UInt64) -> Input {
        var config = SimulationConfig(tags: size.tags, duration: size.duration, seed: seed &+ SimulatedAccuracy.seedOffset)
        config.noiseScale = 0
        let sim = SimulatedRun(site: site, config: config, keepEvents: true)
        var rng = SeededRandom(seed: seed &+ SimulatedAccuracy.seedOffset, stream: 0xA0A)
        let deg = Double.pi / 180
        let sign = { (r: inout SeededRandom) in r.nextBernoulli(0.5) ? 1.0 : -1.0 }
        let errors = site.anchors.map { _ in
            (az: sign(&rng) * rng.nextUniform(5, 10) * deg, el: sign(&rng) * rng.nextUniform(5, 10) * deg,
             std: rng.nextUniform(3, 5) * deg)
        }
        var events: [Event] = [], input: [UInt8] = []
        for e in sim.events {
            var e = e
            if case .ranging(var r) = e {
                guard let a = site.anchorIndex[r.anchor], case .angles(let az?, let el?)? = r.direction else { continue }
                let x = errors[a]
                r.distance = nil
                r.std = nil
                r.direction = .angles(azimuth: Observation.wrapAngle(az + x.az + x.std * rng.nextGaussian()),
                                      elevation: max(-Double.pi / 2, min(Double.pi / 2, el + x.el + x.std * rng.nextGaussian())))
                e = .ranging(r)
            }
            events.append(e)
            IngestEncoder.append(e, to: &input)
        }
        return Input(events: events, input: input, truth: sim.truth)
    }

    static func run(quick: Bool) {
        let size = quick ? SimulatedAccuracy.Size(tags: 3, duration: 60) : SimulatedAccuracy.Size(tags: 4, duration: 180)
        print("\n== 4c. Direction-only room (12 × 6 m, four `aoa` locators in the corners at 2.7 m, azimuth and elevation, "
              + "no distance; per locator a persistent 5–10° offset in each angle and 3–5° noise; \(size.tags) tags × "
              + "\(Int(size.duration)) s) ==")
        var table = Table("Engine vs the textbook bearing EKF on the same input (horizontal)",
                          columns: ["run", "RMSE m", "textbook EKF m", "RMSE/EKF", "target", "verdict", "cov95",
                                    "cov95 85–99 %", "EKF cov95", "PCRB m (5°, no offsets)"])
        let o = simulate(size, seed: 7)
        let options = Evaluation.Options(warmupOrigin: .firstTruth)
        let run = EngineRun.replay(site: site, input: o.input)
        let m = Evaluation(truth: o.truth, estimates: run.estimates, dimensions: [site.id: 2], options: options).site(site.id)
        let ekf = TextbookBearingEKF.run(o.events, site: site)
        let tm = Evaluation(truth: o.truth, estimates: ekf, dimensions: [site.id: 2], options: options).site(site.id)
        let pcrb = PCRB(site: site, q: EngineConfig().movingAccelerationNoise)
            .bound(events: o.events, truth: o.truth, queries: run.estimates)
        let rmse = m?.rmse ?? .nan, base = tm?.rmse ?? .nan
        table.add(["direction-only room", Fmt.f(rmse), Fmt.f(base), Fmt.f(rmse / base, 2), "≤ \(rmseTarget)",
                   Verdicts.check("direction-only RMSE/EKF", rmse / base <= rmseTarget), Fmt.pct(m?.coverage95),
                   coverageVerdict("direction-only room", m?.coverage95), Fmt.pct(tm?.coverage95), Fmt.f(pcrb)])
        table.print()
        print("  The PCRB holds the bearings' default σ (5°) as white noise and knows no offsets: a reference, not the target.")
    }
}

/// The textbook bearing EKF: a constant-velocity filter (q = 1 m²/s³) at the site's tag height, one
/// scalar update per azimuth and per elevation with the technology's default σ, no gate, no offsets.
/// Each tag starts at the least-squares intersection of the first rays of two or more anchors, with
/// σ 1 m and 1 m/s, and starts again so when its filter has left the site by more than 1 m. One
/// estimate per tag every 0.1 s.
enum TextbookBearingEKF {
    static func run(_ events: [Event], site: Site, q: Double = 1.0, interval: Double = 0.1) -> [EstimateSample] {
        var filters: [String: CVFilter3] = [:], pending: [String: [Int: Vec3]] = [:], last: [String: Nanoseconds] = [:]
        var out: [EstimateSample] = []
        let z0 = site.tagHeight ?? 1.2, step = Nanoseconds(interval * 1e9)
        for case .ranging(let r) in events {
            guard let a = site.anchorIndex[r.anchor], let orientation = site.anchors[a].orientation,
                  case .angles(let az?, let el?)? = r.direction else { continue }
            let anchor = site.anchors[a], sigma = (r.technology ?? anchor.technologies[0]).defaultAngleStd
            guard var f = filters[r.tag] else {
                let u = orientation.toSite(Vec3(cos(el) * cos(az), cos(el) * sin(az), sin(el)))
                pending[r.tag, default: [:]][a] = u
                if let p = intersect(pending[r.tag]!, site: site, height: z0) {
                    filters[r.tag] = CVFilter3(position: p, time: r.time, positionStd: 1, velocityStd: 1)
                }
                continue
            }
            // Without a gate the filter can run away on a bad start: it leaves the site and is started again.
            guard site.bounds.contains(f.position, margin: 1) else {
                filters[r.tag] = nil
                pending[r.tag] = [:]
                continue
            }
            f.predict(to: r.time, q: q)
            let toAnchor = orientation.rotation.transposed
            for (kind, value) in [(Observation.Kind.azimuth, az), (.elevation, el)] {
                let o = Observation(kind: kind, anchor: a, anchorPosition: anchor.position, toAnchor: toAnchor,
                                    value: value, std: sigma, time: r.time)
                guard let pr = o.predict(at: Vec3(f.x[0], f.x[1], z0)) else { continue }
                f.update(residual: o.residual(pr.value), h: Vec3(pr.gradient.x, pr.gradient.y, 0), r: sigma * sigma)
            }
            filters[r.tag] = f
            if last[r.tag].map({ r.time - $0 >= step }) ?? true {
                last[r.tag] = r.time
                out.append(EstimateSample(site: site.id, tag: r.tag, time: r.time, position: Vec3(f.x[0], f.x[1], z0),
                                          covariance: PositionCovariance(xx: f.p[0], xy: f.p[1], yy: f.p[7])))
            }
        }
        return out
    }

    /// The point nearest, in plan, to the horizontal rays of two or more anchors (nil when parallel).
    static func intersect(_ rays: [Int: Vec3], site: Site, height z0: Double) -> Vec3? {
        guard rays.count >= 2 else { return nil }
        var m = [0.0, 0, 0, 0], b = [0.0, 0]
        for (a, u) in rays {
            let h = Vec3(u.x, u.y, 0)
            guard let n = h.normalized else { continue }
            let p = site.anchors[a].position
            let e = [[1 - n.x * n.x, -n.x * n.y], [-n.x * n.y, 1 - n.y * n.y]]
            for i in 0..<2 { for j in 0..<2 { m[i * 2 + j] += e[i][j] }; b[i] += e[i][0] * p.x + e[i][1] * p.y }
        }
        guard let x = SmallLeastSquares.solve(m, rows: 2, cols: 2, b: b) else { return nil }
        return Vec3(x[0], x[1], z0)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
