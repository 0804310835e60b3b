extension Zone {
    /// The signed horizontal distance from (x, y) to the polygon's boundary, metres: positive inside
    /// (by the even-odd rule of `contains`), negative outside, the distance to the nearest edge.
    /// - Parameters: x, y in the site frame, metres.
    public func signedDistance(x: Double, y: Double) -> Double {
        guard polygon.count >= 2 else { return -.infinity }
        var best = Double.infinity
        var j = polygon.count - 1
        for i in 0..<polygon.count {
            let (ax, ay) = polygon[j], (bx, by) = polygon[i]
            let ex = bx - ax, ey = by - ay
            let length2 = ex * ex + ey * ey
            let s = length2 > 0 ? max(0, min(1, ((x - ax) * ex + (y - ay) * ey) / length2)) : 0
            let dx = x - (ax + s * ex), dy = y - (ay + s * ey)
            best = min(best, (dx * dx + dy * dy).squareRoot())
            j = i
        }
        return contains(x: x, y: y) ? best : -best
    }

    /// The signed vertical distance from height `z` to the zone's height range, metres: positive
    /// inside, negative outside; `+infinity` when the zone has no height limit.
    /// - Parameter z: height in the site frame, metres.
    public func signedHeightDistance(z: Double) -> Double {
        var d = Double.infinity
        if let minZ { d = min(d, z - minZ) }
        if let maxZ { d = min(d, maxZ - z) }
        return d
    }
}
