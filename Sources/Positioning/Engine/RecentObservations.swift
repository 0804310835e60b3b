/// A fixed-size ring of a tag's most recent observations, kept for (re)initialisation by
/// multilateration. Compact (24 bytes an entry) so that tag state stays small.
struct RecentObservations: Sendable {
    struct Entry: Sendable {
        var time: Nanoseconds
        var value: Float
        var std: Float
        var anchor: UInt16
        var kind: UInt8   // 0 range, 1 azimuth, 2 elevation
        static let empty = Entry(time: .min, value: 0, std: 1, anchor: 0, kind: 0)
    }

    static let capacity = 24
    private var entries = InlineArray<24, Entry>(repeating: .empty)
    private var next = 0
    private(set) var count = 0

    mutating func append(_ o: Observation) {
        let kind: UInt8 = switch o.kind { case .range: 0; case .azimuth: 1; case .elevation: 2 }
        entries[next] = Entry(time: o.time, value: Float(o.value), std: Float(o.std), anchor: UInt16(o.anchor), kind: kind)
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Forgets every observation of one anchor (its session with the tag ended).
    mutating func removeAnchor(_ anchor: Int) {
        for i in 0..<Self.capacity where entries[i].anchor == UInt16(anchor) { entries[i].time = .min }
    }

    mutating func removeAll() { count = 0; next = 0; entries = InlineArray(repeating: .empty) }

    /// The observations not older than `since`, rebuilt with their anchors' geometry.
    func observations(since: Nanoseconds, site: Site, rotations: [Mat3]) -> [Observation] {
        var out: [Observation] = []
        out.reserveCapacity(count)
        for i in 0..<Self.capacity {
            let e = entries[i]
            guard e.time != .min, e.time >= since, Int(e.anchor) < site.anchors.count else { continue }
            let kind: Observation.Kind = e.kind == 0 ? .range : (e.kind == 1 ? .azimuth : .elevation)
            let a = Int(e.anchor)
            out.append(Observation(kind: kind, anchor: a, anchorPosition: site.anchors[a].position,
                                   toAnchor: rotations[a], value: Double(e.value), std: Double(e.std), time: e.time))
        }
        return out
    }
}

internal import Numerics
