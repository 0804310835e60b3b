import Testing
import Numerics
import Positioning
@testable import Survey

/// Anchor self-positioning on the demo warehouse's anchors.
struct CalibrationTests {
    static let truth = Site.demoWarehouse

    /// Ranges between every pair of anchors within `maxRange`, `count` per pair, with Gaussian noise.
    static func ranges(_ site: Site, std: Double, count: Int = 10, maxRange: Double = 30,
                       seed: UInt64 = 1, skip: (String, String) -> Bool = { _, _ in false }) -> [AnchorRange] {
        var rng = SeededRandom(seed: seed)
        var out: [AnchorRange] = []
        for a in site.anchors {
            for b in site.anchors where a.id < b.id && !skip(a.id, b.id) {
                let d = (a.position - b.position).norm
                guard d <= maxRange else { continue }
                for k in 0..<count {
                    let (from, to) = k % 2 == 0 ? (a.id, b.id) : (b.id, a.id)
                    out.append(AnchorRange(from: from, to: to, distance: d + std * rng.nextGaussian(), std: std))
                }
            }
        }
        return out
    }

    /// The site file as an installer drew it: free anchors off by up to 1.5 m in x and y.
    static func misplaced() -> Site {
        var site = truth
        var rng = SeededRandom(seed: 99)
        for i in 3..<site.anchors.count {
            site.anchors[i].position.x += rng.nextUniform(-1.5, 1.5)
            site.anchors[i].position.y += rng.nextUniform(-1.5, 1.5)
        }
        return site
    }

    @Test func exactRangesRecoverPositions() throws {
        let result = try Calibration.solve(site: Self.misplaced(), ranges: Self.ranges(Self.truth, std: 0.1, count: 1).map {
            var r = $0; r.distance = (Self.truth.anchor(r.from)!.position - Self.truth.anchor(r.to)!.position).norm; return r
        })
        #expect(result.anchors.count == 11 && result.uncalibrated.isEmpty)
        for c in result.anchors {
            // Exact data: only the solver's convergence tolerance remains (well under a micrometre).
            #expect((c.position - Self.truth.anchor(c.id)!.position).norm < 1e-6, "anchor \(c.id)")
        }
        #expect(result.site.anchors.map(\.position) == result.anchors.map(\.position))
    }

    @Test func exactRangesIn3D() throws {
        var site = Self.misplaced()
        for i in 3..<site.anchors.count { site.anchors[i].position.z += 0.3 }
        let exact = Self.ranges(Self.truth, std: 0.1, count: 1).map {
            var r = $0; r.distance = (Self.truth.anchor(r.from)!.position - Self.truth.anchor(r.to)!.position).norm; return r
        }
        let result = try Calibration.solve(site: site, ranges: exact, options: CalibrationOptions(dimensions: 3))
        for c in result.anchors {
            #expect((c.position - Self.truth.anchor(c.id)!.position).norm < 1e-4, "anchor \(c.id)")
        }
    }

    /// The quality figure: over 40 noisy trials, each free anchor's RMS error is within 2× its
    /// Cramér–Rao bound (and the bound is not loose: the ratio stays above 0.5).
    @Test func noisyRangesWithinTwiceTheBound() throws {
        var sq: [String: Double] = [:], bound: [String: Double] = [:]
        let trials = 40
        for trial in 0..<trials {
            let r = try Calibration.solve(site: Self.misplaced(), ranges: Self.ranges(Self.truth, std: 0.1, seed: UInt64(trial)))
            for c in r.anchors where !c.fixed {
                let e = c.position - Self.truth.anchor(c.id)!.position
                sq[c.id, default: 0] += (e.x * e.x + e.y * e.y) / Double(trials)
                bound[c.id] = (c.boundStd.x * c.boundStd.x + c.boundStd.y * c.boundStd.y).squareRoot()
            }
        }
        var line = "calibration RMS error / CRB:"
        for id in sq.keys.sorted() {
            let ratio = sq[id]!.squareRoot() / bound[id]!
            line += " \(id) \(TextFormat.fixed(ratio, 2)) (\(TextFormat.fixed(1000 * bound[id]!, 1)) mm)"
            #expect(ratio < 2 && ratio > 0.5, "anchor \(id): ratio \(ratio)")
        }
        print(line)
    }

    @Test func tooFewReferenceAnchors() {
        #expect(throws: CalibrationError.tooFewFixed(have: 2, need: 3)) {
            try Calibration.solve(site: Self.truth, ranges: Self.ranges(Self.truth, std: 0.1),
                                  options: CalibrationOptions(fixed: ["U1", "U2", "U1"]))
        }
    }

    @Test func unknownReferenceAnchor() {
        #expect(throws: CalibrationError.unknownFixedAnchor("X9")) {
            try Calibration.solve(site: Self.truth, ranges: Self.ranges(Self.truth, std: 0.1),
                                  options: CalibrationOptions(fixed: ["U1", "U2", "X9"]))
        }
    }

    @Test func collinearReferenceAnchors() {
        #expect(throws: CalibrationError.degenerateFixed(["U5", "D1", "U6"])) {
            try Calibration.solve(site: Self.truth, ranges: Self.ranges(Self.truth, std: 0.1),
                                  options: CalibrationOptions(fixed: ["U5", "D1", "U6"]))
        }
    }

    @Test func disconnectedGraphNamesComponents() {
        let west: Set = ["U1", "U4", "C4", "U5", "C1"]
        let ranges = Self.ranges(Self.truth, std: 0.1) { west.contains($0) != west.contains($1) }
        #expect(throws: CalibrationError.disconnected(components: [["U2", "U3", "U6", "C2", "C3", "D1"],
                                                                   ["U1", "U4", "U5", "C1", "C4"]])) {
            try Calibration.solve(site: Self.truth, ranges: ranges)
        }
        let message = "\(CalibrationError.disconnected(components: [["A", "B"], ["C"]]))"
        #expect(message.contains("{A, B} | {C}"))
    }

    @Test func anchorWithTooFewRanges() {
        // C2 keeps a single peer (U3).
        let ranges = Self.ranges(Self.truth, std: 0.1) { a, b in (a == "C2" || b == "C2") && !(a == "U3" || b == "U3") }
        #expect(throws: CalibrationError.tooFewRanges(anchor: "C2", have: 1, need: 2)) {
            try Calibration.solve(site: Self.truth, ranges: ranges)
        }
    }

    @Test func noRangesAtAll() {
        #expect(throws: CalibrationError.noRanges) { try Calibration.solve(site: Self.truth, ranges: []) }
    }

    @Test func anchorsWithoutRangesAreLeftAlone() throws {
        let ranges = Self.ranges(Self.truth, std: 0.1) { a, b in a == "C3" || b == "C3" }
        let r = try Calibration.solve(site: Self.truth, ranges: ranges)
        #expect(r.uncalibrated == ["C3"])
        #expect(r.site.anchor("C3") == Self.truth.anchor("C3"))
    }
}
