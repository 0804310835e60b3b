/// A 3-vector of doubles: positions (metres), velocities (m/s) or unit directions in a stated frame.
public struct Vec3: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x; self.y = y; self.z = z
    }

    public static let zero = Vec3(0, 0, 0)

    @inlinable public static func + (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable public static func - (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable public static func * (s: Double, a: Vec3) -> Vec3 { Vec3(s * a.x, s * a.y, s * a.z) }
    @inlinable public static prefix func - (a: Vec3) -> Vec3 { Vec3(-a.x, -a.y, -a.z) }

    /// Dot product.
    @inlinable public func dot(_ o: Vec3) -> Double { x * o.x + y * o.y + z * o.z }
    /// Cross product.
    @inlinable public func cross(_ o: Vec3) -> Vec3 {
        Vec3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }
    /// Euclidean length.
    @inlinable public var norm: Double { (x * x + y * y + z * z).squareRoot() }
    /// Length in the x-y plane.
    @inlinable public var horizontalNorm: Double { (x * x + y * y).squareRoot() }
    /// The unit vector in this direction, or nil for the zero vector.
    @inlinable public var normalized: Vec3? {
        let n = norm
        return n > 0 && n.isFinite ? (1 / n) * self : nil
    }
    /// True when every component is finite.
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// Component by index (0 = x, 1 = y, 2 = z).
    @inlinable public subscript(i: Int) -> Double {
        get { i == 0 ? x : (i == 1 ? y : z) }
        set { if i == 0 { x = newValue } else if i == 1 { y = newValue } else { z = newValue } }
    }

    public var description: String { "(\(x), \(y), \(z))" }
}

/// A 3×3 matrix stored by rows; used for rotations between the anchor and site frames.
public struct Mat3: Hashable, Sendable {
    public var r0: Vec3
    public var r1: Vec3
    public var r2: Vec3

    @inlinable public init(rows r0: Vec3, _ r1: Vec3, _ r2: Vec3) {
        self.r0 = r0; self.r1 = r1; self.r2 = r2
    }

    public static let identity = Mat3(rows: Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1))

    /// Matrix-vector product.
    @inlinable public static func * (m: Mat3, v: Vec3) -> Vec3 { Vec3(m.r0.dot(v), m.r1.dot(v), m.r2.dot(v)) }

    /// Matrix product.
    @inlinable public static func * (a: Mat3, b: Mat3) -> Mat3 {
        let bt = b.transposed
        return Mat3(rows: Vec3(a.r0.dot(bt.r0), a.r0.dot(bt.r1), a.r0.dot(bt.r2)),
                    Vec3(a.r1.dot(bt.r0), a.r1.dot(bt.r1), a.r1.dot(bt.r2)),
                    Vec3(a.r2.dot(bt.r0), a.r2.dot(bt.r1), a.r2.dot(bt.r2)))
    }

    /// The transpose (the inverse, for a rotation).
    @inlinable public var transposed: Mat3 {
        Mat3(rows: Vec3(r0.x, r1.x, r2.x), Vec3(r0.y, r1.y, r2.y), Vec3(r0.z, r1.z, r2.z))
    }

    /// Right-handed rotation about the site z axis by `a` radians.
    public static func rotationZ(_ a: Double) -> Mat3 {
        let c = cos(a), s = sin(a)
        return Mat3(rows: Vec3(c, -s, 0), Vec3(s, c, 0), Vec3(0, 0, 1))
    }
    /// Right-handed rotation about the site y axis by `a` radians.
    public static func rotationY(_ a: Double) -> Mat3 {
        let c = cos(a), s = sin(a)
        return Mat3(rows: Vec3(c, 0, s), Vec3(0, 1, 0), Vec3(-s, 0, c))
    }
    /// Right-handed rotation about the site x axis by `a` radians.
    public static func rotationX(_ a: Double) -> Mat3 {
        let c = cos(a), s = sin(a)
        return Mat3(rows: Vec3(1, 0, 0), Vec3(0, c, -s), Vec3(0, s, c))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ClosedRange {
    /// `x` moved into the range: the nearer bound when it lies outside, `x` itself inside.
    @inlinable public func clamping(_ x: Bound) -> Bound { Swift.min(Swift.max(x, lowerBound), upperBound) }
}
