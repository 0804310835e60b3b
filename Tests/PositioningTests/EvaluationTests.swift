import Testing
import Numerics
import Positioning

private let second: Nanoseconds = 1_000_000_000
private let tenth: Nanoseconds = 100_000_000

/// Truth of one tag sampled every 0.1 s from 0 to `seconds`, at `position(t)`.
private func truth(site: String = "s", tag: String = "T", seconds: Int = 10,
                   _ position: (Double) -> Vec3 = { _ in .zero }) -> [TruthSample] {
    (0...(10 * seconds)).map { k in
        TruthSample(site: site, tag: tag, time: Nanoseconds(k) * tenth, position: position(Double(k) / 10))
    }
}

private func estimate(_ t: Nanoseconds, _ p: Vec3, site: String = "s", tag: String = "T",
                      covariance: PositionCovariance? = nil) -> EstimateSample {
    EstimateSample(site: site, tag: tag, time: t, position: p, covariance: covariance)
}

private let noWarmup = Evaluation.Options(warmup: 0)

@Suite struct EvaluationTests {
    @Test func knownErrorsGiveExactStatistics() throws {
        // Errors 1…10 m along x, plus a z error a 2-D site must ignore.
        let estimates = (1...10).map { k in estimate(Nanoseconds(k) * second / 2, Vec3(Double(k), 0, 100)) }
        let m = try #require(Evaluation(truth: truth(), estimates: estimates, options: noWarmup).site("s"))
        #expect(m.count == 10 && m.dimensions == 2 && m.skipped == 0)
        // Exact in decimal; 1e-12 only absorbs float rounding in the sums.
        #expect(abs(m.rmse - 38.5.squareRoot()) < 1e-12)
        #expect(abs(m.mean - 5.5) < 1e-12)
        #expect(abs(m.median - 5.5) < 1e-12)
        #expect(abs(m.p95 - 9.55) < 1e-12)     // rank 0.95 · 9 = 8.55 between 9 and 10
        #expect(m.max == 10)
        #expect(m.coverage95 == nil)
        let m3 = try #require(Evaluation(truth: truth(), estimates: [estimate(second, Vec3(3, 0, 4))],
                                         dimensions: ["s": 3], options: noWarmup).site("s"))
        #expect(m3.dimensions == 3 && abs(m3.rmse - 5) < 1e-12)
    }

    @Test func truthIsInterpolatedAndGapsAndEdgesAreSkipped() throws {
        // Tag walking along x at 1 m/s; truth missing between 3 s and 5 s.
        let walk = truth { t in Vec3(t, 2, 1) }.filter { $0.time <= 3 * second || $0.time >= 5 * second }
        let estimates = [
            estimate(second / 20, Vec3(0.05, 2, 1)),          // halfway between two samples: error 0
            estimate(25 * second / 20, Vec3(1.35, 2, 1)),     // at 1.25 s the truth is 1.25: error 0.1
            estimate(4 * second, Vec3(4, 2, 1)),              // inside the 2 s gap: skipped
            estimate(11 * second, Vec3(11, 2, 1)),            // after the truth: skipped
        ]
        let m = try #require(Evaluation(truth: walk, estimates: estimates, options: noWarmup).site("s"))
        #expect(m.count == 2 && m.skipped == 2)
        #expect(abs(m.max - 0.1) < 1e-9)
        #expect(abs(m.median - 0.05) < 1e-9)
    }

    @Test func warmupSkipsTheStartOfEachTag() throws {
        // Each tag is 5 m off during its first 2 s after its first estimate, exact afterwards.
        var estimates: [EstimateSample] = []
        for (tag, offset) in [("T", Nanoseconds(0)), ("U", 3 * second)] {
            for k in 0..<50 {
                let t = offset + Nanoseconds(k) * tenth
                estimates.append(estimate(t, t - offset < 2 * second ? Vec3(5, 0, 0) : .zero, tag: tag))
            }
        }
        let all = truth(tag: "T") + truth(tag: "U")
        let warm = try #require(Evaluation(truth: all, estimates: estimates).site("s"))
        #expect(warm.count == 60 && warm.max == 0)
        let cold = try #require(Evaluation(truth: all, estimates: estimates, options: noWarmup).site("s"))
        #expect(cold.count == 100 && cold.max == 5)
        // From the first truth sample (0 s) instead, tag U's bad start (3–5 s) is inside the window.
        let fromTruth = Evaluation.Options(warmupOrigin: .firstTruth)
        let early = try #require(Evaluation(truth: all, estimates: estimates, options: fromTruth).site("s"))
        #expect(early.count == 80 && early.max == 5)
    }

    @Test func availabilityCountsFreshEstimatesAtTruthTimes() throws {
        // Estimates every 0.1 s except between 4 s and 6 s; truth 0…10 s (101 samples).
        let estimates = (0...100).filter { $0 < 40 || $0 >= 60 }.map { k in
            estimate(Nanoseconds(k) * tenth, .zero)
        }
        let m = try #require(Evaluation(truth: truth(), estimates: estimates, options: noWarmup).site("s"))
        // Last estimate before the gap at 3.9 s stays fresh (≤ 1 s) up to 4.9 s; 5.0…5.9 s are misses.
        #expect(m.availabilitySamples == 101)
        #expect(abs(m.availability - 91.0 / 101.0) < 1e-12)
        // Truth after the last estimate counts as missed unless told otherwise.
        let short = Array(estimates.prefix(50))   // up to 3.9 s, then 6.0…6.9 s
        let strict = try #require(Evaluation(truth: truth(), estimates: short, options: noWarmup).site("s"))
        var clipped = noWarmup
        clipped.availabilityUntilLastEstimate = true
        let lenient = try #require(Evaluation(truth: truth(), estimates: short, options: clipped).site("s"))
        #expect(strict.availabilitySamples == 101 && lenient.availabilitySamples == 70)
        #expect(lenient.availability > strict.availability)
        // A site with truth but no estimates at all is 0 % available.
        let none = Evaluation(truth: truth(site: "empty"), estimates: [])
        #expect(none.site("empty")?.availability == 0 && none.site("empty")?.count == 0)
    }

    @Test func coverageOfMatchingGaussianErrorsIsNear95Percent() throws {
        var rng = SeededRandom(seed: 2024)
        let n = 20_000
        // 2-D: C = [[0.04, 0.01], [0.01, 0.09]], sampled as L·z with L the Cholesky factor.
        let c2 = PositionCovariance(xx: 0.04, xy: 0.01, yy: 0.09)
        let l11 = 0.2, l21 = 0.01 / 0.2, l22 = (0.09 - l21 * l21).squareRoot()
        // 3-D: a diagonal-plus-coupling matrix, sampled the same way.
        let c3 = PositionCovariance(xx: 0.04, xy: 0, yy: 0.04, xz: 0.02, yz: 0, zz: 0.25)
        let m31 = 0.02 / 0.2, m33 = (0.25 - m31 * m31).squareRoot()
        var e2: [EstimateSample] = [], e3: [EstimateSample] = [], tight: [EstimateSample] = []
        for k in 0..<n {
            let t = Nanoseconds(k) * second / 2000
            let (z1, z2, z3) = (rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian())
            let p2 = Vec3(l11 * z1, l21 * z1 + l22 * z2, 0)
            e2.append(estimate(t, p2, covariance: c2))
            tight.append(estimate(t, p2, covariance: PositionCovariance(xx: 0.01, xy: 0.0025, yy: 0.0225)))
            e3.append(estimate(t, Vec3(0.2 * z1, 0.2 * z2, m31 * z1 + m33 * z3), site: "d3", covariance: c3))
        }
        let truth3 = truth(site: "d3")
        let r = Evaluation(truth: truth() + truth3, estimates: e2 + e3, dimensions: ["d3": 3], options: noWarmup)
        // Binomial standard error at n = 20 000 is √(0.95·0.05/n) ≈ 0.0015; ±0.008 is over 5σ.
        let cov2 = try #require(r.site("s")?.coverage95), cov3 = try #require(r.site("d3")?.coverage95)
        #expect(abs(cov2 - 0.95) < 0.008, "2-D coverage \(cov2)")
        #expect(abs(cov3 - 0.95) < 0.008, "3-D coverage \(cov3)")
        // A covariance claiming half the real spread covers far less: P(χ²₂ ≤ 5.991/4) ≈ 0.53.
        let over = try #require(Evaluation(truth: truth(), estimates: tight, options: noWarmup).site("s")?.coverage95)
        #expect(abs(over - 0.53) < 0.02)
        // From an engine output: the PositionEstimate's covariance is carried over.
        let pe = PositionEstimate(site: "s", tag: "T", position: .zero, velocity: .zero, covXX: 1, covXY: 0,
                                  covYY: 1, anchors: 4, motion: .moving, time: 0)
        #expect(EstimateSample(pe).covariance == PositionCovariance(xx: 1, xy: 0, yy: 1))
    }

    @Test func tableListsEverySite() {
        let r = Evaluation(truth: truth() + truth(site: "b"), estimates: [estimate(second, Vec3(0.25, 0, 0))],
                           options: noWarmup)
        let table = r.table()   // "s": from the first estimate (1 s), 11 of 91 truth samples fresh
        #expect(table.split(separator: "\n").count == 3)
        #expect(table.contains("RMSE m") && table.contains("0.250") && table.contains("12.1"))
        #expect(r.sites.map(\.site) == ["b", "s"])
    }

    @Test func truthCSVRoundTripsAndReportsBadLines() throws {
        let samples = [
            TruthSample(site: "lias-lab", tag: "T0", time: 1_660_556_542_968_000_000, position: Vec3(0.2423, -1.7831, 0.9652)),
            TruthSample(site: "lias-lab", tag: "T1", time: 1_660_556_542_985_000_000, position: Vec3(-12.5, 0, 3)),
        ]
        let text = TruthCSV.format(samples)
        #expect(text.hasPrefix("t_ns,site,tag,x,y,z\n1660556542968000000,lias-lab,T0,0.2423,-1.7831,0.9652\n"))
        #expect(try TruthCSV.parse(text) == samples)
        // No header, CRLF, blank lines, spaces and an exponent are all tolerated.
        let loose = "\r\n5,s,T, 1e-3 ,2,-0\r\n\n6,s,T,1.5,2.25,3\r\n"
        let parsed = try TruthCSV.parse(bytes: Array(loose.utf8))
        #expect(parsed.count == 2 && parsed[0].position == Vec3(0.001, 2, 0) && parsed[1].time == 6)
        #expect(throws: TruthCSVError.invalidNumber(line: 3, field: "y", text: "abc")) {
            try TruthCSV.parse("t_ns,site,tag,x,y,z\n1,s,T,0,0,0\n2,s,T,0,abc,0\n")
        }
        #expect(throws: TruthCSVError.fieldCount(line: 2, found: 5)) { try TruthCSV.parse("1,s,T,0,0,0\n2,s,T,0,0\n") }
        #expect(throws: TruthCSVError.invalidTime(line: 1, text: "1.5")) { try TruthCSV.parse("1.5,s,T,0,0,0") }
        #expect(throws: TruthCSVError.emptyField(line: 1, field: "tag")) { try TruthCSV.parse("1,s,,0,0,0") }
        #expect(TruthCSVError.invalidNumber(line: 3, field: "y", text: "abc").description
                == "line 3: field 'y' is not a finite number (abc)")
    }
}
