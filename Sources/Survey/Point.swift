/// A point on a figure, pixels (x right, y down).
public struct Point: Sendable, Equatable {
    public var x: Double, y: Double
    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
}
