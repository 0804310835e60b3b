import Foundation
import Numerics
import Positioning
import Testing

/// Anchor orientation, field of view, zones and direction vectors, checked against known values.
///
/// Tolerance 1e-12 throughout: each value is a handful of floating-point operations on O(1)
/// numbers (sin/cos of exact-ish angles), so errors are a few ulps (~1e-16); 1e-12 leaves room
/// without hiding a wrong sign or axis.
@Suite struct GeometryTests {
    private static let tol = 1e-12
    private static let deg = Double.pi / 180

    private static func close(_ a: Vec3, _ b: Vec3) -> Bool { (a - b).norm < tol }

    // MARK: rotations, R = Rz(yaw)·Ry(pitch)·Rx(roll), anchor frame to site frame

    @Test func yaw90TurnsBoresightToPlusY() {
        let o = Orientation(yaw: 90 * Self.deg, pitch: 0, roll: 0)
        #expect(Self.close(o.toSite(Vec3(1, 0, 0)), Vec3(0, 1, 0)))
        #expect(Self.close(o.toSite(Vec3(0, 1, 0)), Vec3(-1, 0, 0)))   // left turns to -x
    }

    @Test func positivePitchTiltsBoresightDown() {
        let o = Orientation(yaw: 0, pitch: 30 * Self.deg, roll: 0)
        let b = o.toSite(Vec3(1, 0, 0))
        #expect(Self.close(b, Vec3(cos(30 * Self.deg), 0, -sin(30 * Self.deg))))
        #expect(b.z < 0)
    }

    @Test func roll90TurnsLeftToUp() {
        let o = Orientation(yaw: 0, pitch: 0, roll: 90 * Self.deg)
        #expect(Self.close(o.toSite(Vec3(0, 1, 0)), Vec3(0, 0, 1)))
        #expect(Self.close(o.toSite(Vec3(1, 0, 0)), Vec3(1, 0, 0)))   // boresight unchanged
    }

    /// Worked by hand, applying Rx first, then Ry, then Rz (yaw = pitch = roll = 90°):
    /// x → Rx → x → Ry → (0, 0, -1) → Rz → (0, 0, -1);
    /// y → Rx → z → Ry → x → Rz → y;  z → Rx → -y → Ry → -y → Rz → x.
    /// The reverse order Rx·Ry·Rz would send x to z instead.
    @Test func compositionIsZYX() {
        let o = Orientation(yaw: 90 * Self.deg, pitch: 90 * Self.deg, roll: 90 * Self.deg)
        #expect(Self.close(o.toSite(Vec3(1, 0, 0)), Vec3(0, 0, -1)))
        #expect(Self.close(o.toSite(Vec3(0, 1, 0)), Vec3(0, 1, 0)))
        #expect(Self.close(o.toSite(Vec3(0, 0, 1)), Vec3(1, 0, 0)))
        // Yaw 90°, pitch 30°: pitch first tilts the boresight down, then yaw turns it to +y.
        let p = Orientation(yaw: 90 * Self.deg, pitch: 30 * Self.deg, roll: 0)
        #expect(Self.close(p.toSite(Vec3(1, 0, 0)), Vec3(0, cos(30 * Self.deg), -sin(30 * Self.deg))))
    }

    @Test func toAnchorInvertsToSite() {
        let o = Orientation(yaw: 0.7, pitch: -0.3, roll: 1.9)
        let v = Vec3(0.3, -1.2, 2.5)
        #expect(Self.close(o.toAnchor(o.toSite(v)), v))
        #expect(abs(o.toSite(v).norm - v.norm) < Self.tol)
    }

    /// A file's degrees load as the radians the rotation expects.
    @Test func fileDegreesBecomeRadians() throws {
        let json = #"{"id": "t", "dimensions": 3, "bounds": {"min": [0, 0, 0], "max": [1, 1, 1]},"#
            + #""anchors": [{"id": "A", "position": [0, 0, 4], "technologies": ["uwb"],"#
            + #""orientation": {"yaw": 90, "pitch": 30, "roll": 0}, "fieldOfView": 120}]}"#
        let a = try #require(try Site(json: Array(json.utf8), source: "t.json").anchors.first)
        #expect(Self.close(a.orientation!.toSite(Vec3(1, 0, 0)), Vec3(0, cos(30 * Self.deg), -sin(30 * Self.deg))))
        #expect(abs(a.fieldOfView! - 120 * Self.deg) < Self.tol)
    }

    // MARK: field of view

    @Test func seesDirectionInsideAndOutside120DegreeCone() {
        // Boresight along +x after yaw 0, pitch 0; half-angle 60°.
        let a = Anchor(id: "A", position: .zero, technologies: [.uwb],
                       orientation: Orientation(yaw: 0, pitch: 0, roll: 0), fieldOfView: 120 * Self.deg)
        #expect(a.seesDirection(Vec3(1, 0, 0)))
        #expect(a.seesDirection(Vec3(cos(59 * Self.deg), sin(59 * Self.deg), 0)))
        #expect(!a.seesDirection(Vec3(cos(61 * Self.deg), sin(61 * Self.deg), 0)))
        #expect(!a.seesDirection(Vec3(0, 0, 1)))
        #expect(!a.seesDirection(Vec3(-1, 0, 0)))
        #expect(!a.seesDirection(.zero))
        // Pitched 20° down and turned 45°: a point below and ahead is seen, one behind is not.
        let b = Anchor(id: "B", position: Vec3(0.5, 0.5, 4), technologies: [.uwb],
                       orientation: Orientation(yaw: 45 * Self.deg, pitch: 20 * Self.deg, roll: 0),
                       fieldOfView: 120 * Self.deg)
        #expect(b.seesDirection(Vec3(10, 10, 1.2) - b.position))
        #expect(!b.seesDirection(Vec3(-5, -5, 1.2) - b.position))
        // No orientation: no direction is usable.
        #expect(!Anchor(id: "C", position: .zero, technologies: [.uwb]).seesDirection(Vec3(1, 0, 0)))
    }

    // MARK: zones

    @Test func concaveZoneContainment() {
        // An L: the 10 × 10 square without its top-right 5 × 5 quarter.
        let l = Zone(id: "L", name: "L", polygon: [(0, 0), (10, 0), (10, 5), (5, 5), (5, 10), (0, 10)])
        #expect(l.contains(x: 2, y: 2))
        #expect(l.contains(x: 8, y: 2))
        #expect(l.contains(x: 2, y: 8))
        #expect(!l.contains(x: 8, y: 8))      // the notch
        #expect(!l.contains(x: 11, y: 2))
        #expect(!l.contains(x: -1, y: 8))
    }

    // MARK: directions

    @Test(arguments: [Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0), Vec3(-2, 0.5, 1), Vec3(0.3, -0.4, -0.8),
                      Vec3(-1, -1, 3)])
    func directionAnglesRoundTrip(_ v: Vec3) throws {
        let azimuth = atan2(v.y, v.x), elevation = atan2(v.z, v.horizontalNorm)
        let u = try #require(Direction.angles(azimuth: azimuth, elevation: elevation).unitVector)
        #expect(Self.close(u, v.normalized!))
        #expect(Direction.angles(azimuth: azimuth, elevation: nil).unitVector == nil)
    }
}
