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
    // The cursor first: an append touches it and one entry, next to the track's fields before it.
    private var next = 0
    private(set) var count = 0
    private var entries = InlineArray<24, Entry>(repeating: .empty)

    mutating func append(_ o: Observation) {
        append(kind: o.kind, anchor: o.anchor, value: o.value, std: o.std, time: o.time)
    }

    /// Appends observation `i` of a line (as `append(line[i])`, without building the `Observation`).
    mutating func append(_ line: LineObservations, _ i: Int) {
        let o = line.item(i)
        append(kind: o.kind, anchor: line.anchor, value: o.value, std: o.std, time: line.time)
    }

    @inline(__always)
    private mutating func append(kind k: Observation.Kind, anchor: Int, value: Double, std: Double, time: Nanoseconds) {
        let kind: UInt8 = switch k { case .range: 0; case .azimuth: 1; case .elevation: 2 }
        entries[next] = Entry(time: time, value: Float(value), std: Float(std), anchor: UInt16(anchor), kind: kind)
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Forgets every observation of one anchor (its session with the tag ended).
    mutating func removeAnchor(_ anchor: Int) {
        for i in 0..<Self.capacity where entries[i].anchor == UInt16(anchor) { entries[i].time = .min }
    }

    mutating func removeAll() { count = 0; next = 0; entries = InlineArray(repeating: .empty) }

    /// The newest range of `anchor` not older than `since`: its time, value (m) and σ (m), or nil.
    func latestRange(anchor: Int, since: Nanoseconds) -> (time: Nanoseconds, value: Double, std: Double)? {
        var best: Entry? = nil
        let ring = entries.span
        for i in 0..<Self.capacity {
            let e = ring[i]
            guard e.kind == 0, Int(e.anchor) == anchor, e.time != .min, e.time >= since else { continue }
            if best == nil || e.time > best!.time { best = e }
        }
        return best.map { ($0.time, Double($0.value), Double($0.std)) }
    }

    /// The number of distinct anchors with a range among the observations `observations(since:…)`
    /// gives for `anchorCount` anchors, or `need` when one of them is an angle (angles place with fewer
    /// anchors: `Multilateration.refusal` decides then). Counted in a bit mask for anchors 0–63, which
    /// a set would allocate for.
    func rangeAnchorCount(since: Nanoseconds, anchorCount: Int, atLeast need: Int) -> Int {
        var mask: UInt64 = 0, others = Set<Int>()
        let ring = entries.span
        for i in 0..<Self.capacity {
            let e = ring[i]
            guard e.time != .min, e.time >= since, Int(e.anchor) < anchorCount else { continue }
            guard e.kind == 0 else { return need }
            let a = Int(e.anchor)
            if a < 64 { mask |= 1 << UInt64(a) } else { others.insert(a) }
        }
        return mask.nonzeroBitCount + others.count
    }

    /// The observations not older than `since`, rebuilt with their anchors' geometry.
    /// `positions` are the site's anchor positions (site frame, m) by number, read from an array
    /// rather than through copies of the site's `Anchor` values.
    func observations(since: Nanoseconds, positions: [Vec3], rotations: [Mat3]) -> [Observation] {
        var out: [Observation] = []
        out.reserveCapacity(count)
        // Read through a span: `entries[i]` here copied the whole ring (576 bytes) for each entry.
        let ring = entries.span
        for i in 0..<Self.capacity {
            let e = ring[i]
            guard e.time != .min, e.time >= since, Int(e.anchor) < positions.count else { continue }
            let kind: Observation.Kind = e.kind == 0 ? .range : (e.kind == 1 ? .azimuth : .elevation)
            let a = Int(e.anchor)
            out.append(Observation(kind: kind, anchor: a, anchorPosition: positions[a],
                                   toAnchor: rotations[a], value: Double(e.value), std: Double(e.std), time: e.time))
        }
        return out
    }
}

internal import Numerics
