import Testing
import Foundation
import Numerics
@testable import Positioning

/// Ranges from `anchors` to `p`, with an optional per-range error.
func rangeObservations(_ anchors: [Vec3], to p: Vec3, std: Double = 0.1, errors: [Double]? = nil) -> [Observation] {
    anchors.enumerated().map { i, a in
        Observation(kind: .range, anchor: i, anchorPosition: a, value: (p - a).norm + (errors?[i] ?? 0), std: std, time: 0)
    }
}

@Suite struct MultilaterationTests {
    let square = [Vec3(0, 0, 3), Vec3(10, 0, 3), Vec3(10, 8, 3), Vec3(0, 8, 3)]

    @Test func exact2D() throws {
        let truth = Vec3(3.2, 5.1, 1.2)
        let fix = try Multilateration.solve(rangeObservations(square, to: truth), dimensions: 2, height: 1.2)
        // Exact ranges: the solution is exact up to the solver's convergence threshold (1e-7 m steps).
        #expect((fix.position - truth).norm < 1e-6)
        #expect(fix.position.z == 1.2)
        #expect(fix.covariance.count == 4)
    }

    @Test func exact3D() throws {
        let anchors = [Vec3(0, 0, 0.5), Vec3(10, 0, 4), Vec3(10, 8, 0.5), Vec3(0, 8, 4), Vec3(5, 4, 7)]
        let truth = Vec3(6.5, 2.5, 2.0)
        let fix = try Multilateration.solve(rangeObservations(anchors, to: truth), dimensions: 3, height: nil)
        #expect((fix.position - truth).norm < 1e-6)
        #expect(fix.covariance.count == 9)
    }

    @Test func noisyRangesGiveErrorOfTheNoiseScale() throws {
        var rng = SeededRandom(seed: 7)
        let truth = Vec3(4, 3, 1.2)
        var worst = 0.0
        for _ in 0..<50 {
            let errors = (0..<4).map { _ in 0.05 * rng.nextGaussian() }
            let fix = try Multilateration.solve(rangeObservations(square, to: truth, std: 0.05, errors: errors),
                                                dimensions: 2, height: 1.2)
            worst = max(worst, (fix.position - truth).horizontalNorm)
        }
        // 0.05 m ranges, good geometry (HDOP < 1.5): 50 draws stay well within 4·0.05·1.5 m.
        #expect(worst < 0.3)
    }

    @Test func oneGrossOutlierIsDownWeighted() throws {
        let anchors = square + [Vec3(5, -1, 3), Vec3(5, 9, 3)]
        let truth = Vec3(6, 2, 1.2)
        let fix = try Multilateration.solve(
            rangeObservations(anchors, to: truth, std: 0.1, errors: [0, 0, 4.0, 0, 0, 0]), dimensions: 2, height: 1.2)
        // Plain least squares would move by about a metre; Huber reweighting keeps it within 0.25 m.
        #expect((fix.position - truth).horizontalNorm < 0.25)
    }

    @Test func collinearAnchorsAreReportedNotSolved() {
        let line = [Vec3(0, 0, 3), Vec3(5, 0, 3), Vec3(10, 0, 3)]
        #expect(throws: MultilaterationError.degenerateGeometry) {
            try Multilateration.solve(rangeObservations(line, to: Vec3(4, 3, 1)), dimensions: 2, height: 1)
        }
    }

    @Test func tooFewAnchors() {
        #expect(throws: MultilaterationError.tooFewObservations(have: 2, need: 3)) {
            try Multilateration.solve(rangeObservations(Array(square.prefix(2)), to: Vec3(4, 3, 1)),
                                      dimensions: 2, height: 1)
        }
    }

    @Test func fourAnchorsFixAPointIn3DAndThreeDoNot() throws {
        // Four anchors not in one plane: the linearised equations have one solution. Tolerance: exact
        // ranges, Gauss–Newton converges to rounding.
        let anchors = [Vec3(0, 0, 0.5), Vec3(10, 0, 4), Vec3(10, 8, 0.5), Vec3(0, 8, 4)]
        let fix = try Multilateration.solve(rangeObservations(anchors, to: Vec3(3, 3, 1)), dimensions: 3, height: nil)
        #expect((fix.position - Vec3(3, 3, 1)).norm < 1e-6)
        #expect(throws: MultilaterationError.tooFewObservations(have: 3, need: 4)) {
            try Multilateration.solve(rangeObservations(Array(anchors.prefix(3)), to: Vec3(3, 3, 1)), dimensions: 3,
                                      height: nil)
        }
    }

    @Test func oneAnchorWithRangeAndDirectionIsEnough() throws {
        let o = Orientation(yaw: .pi / 4, pitch: 0.3, roll: 0)
        let a = Vec3(0, 0, 4)
        let truth = Vec3(5, 3, 1.2)
        let v = o.toAnchor(truth - a)
        let toAnchor = o.rotation.transposed
        let obs = [
            Observation(kind: .range, anchor: 0, anchorPosition: a, value: v.norm, std: 0.1, time: 0),
            Observation(kind: .azimuth, anchor: 0, anchorPosition: a, toAnchor: toAnchor,
                        value: atan2(v.y, v.x), std: 0.05, time: 0),
            Observation(kind: .elevation, anchor: 0, anchorPosition: a, toAnchor: toAnchor,
                        value: atan2(v.z, (v.x * v.x + v.y * v.y).squareRoot()), std: 0.05, time: 0),
        ]
        let fix3 = try Multilateration.solve(obs, dimensions: 3, height: nil)
        #expect((fix3.position - truth).norm < 1e-6)
        let fix2 = try Multilateration.solve(Array(obs.prefix(2)), dimensions: 2, height: 1.2)
        #expect((fix2.position - truth).horizontalNorm < 1e-6)
    }
}

@Suite struct EmbeddedSiteTests {
    @Test func embeddedDemoSiteMatchesTheFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("Sites/demo-warehouse.json"), encoding: .utf8)
        #expect(Site.demoWarehouseJSON + "\n" == file, "run scripts/embed-demo-site after editing the JSON")
        #expect(Site.demoWarehouse.anchors.count >= 8)
    }
}
