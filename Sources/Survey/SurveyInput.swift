public import Numerics
public import Positioning
internal import Wire

/// Ingest bytes decoded into events for the survey computations (pure: bytes in, values out).
public struct SurveyInput: Sendable {
    /// The decoded events, in file order.
    public var events: [Event]
    /// Lines the decoder rejected.
    public var rejected: Int
    /// The first rejections with line numbers and reasons.
    public var rejectionMessages: [String]

    /// Decodes line-protocol bytes (lines without a timestamp are rejected).
    public init(bytes: [UInt8]) {
        var reader = IngestReader()
        var events: [Event] = [], rejected = 0, messages: [String] = []
        let handle = { (r: Result<Event, Rejection>) in
            switch r {
            case .success(let e): events.append(e)
            case .failure(let rejection):
                rejected += 1
                if messages.count < 10 { messages.append(rejection.message) }
            }
        }
        reader.feed(bytes, timestamps: .requireTimestamp, handle)
        reader.finish(timestamps: .requireTimestamp, handle)
        self.events = events; self.rejected = rejected; self.rejectionMessages = messages
    }

    /// The ranging events of a site.
    public func rangings(site: String) -> [Ranging] {
        events.compactMap { if case .ranging(let r) = $0, r.site == site { r } else { nil } }
    }

    /// Anchor-to-anchor ranges: ranging lines of the site whose tag is one of its anchors. The measuring
    /// anchor's `rangeBias` is removed; the σ is the larger of the line's `std` and the anchor's
    /// `rangeStd`, else the technology default (as the engine weighs ranges).
    public func anchorRanges(site: Site) -> [AnchorRange] {
        rangings(site: site.id).compactMap { r in
            guard let d = r.distance, let a = site.anchor(r.anchor), site.anchorIndex[r.tag] != nil else { return nil }
            let tech = r.technology ?? a.technologies.first ?? .uwb
            let std = Anchor.rangeStd(line: r.std, calibrated: a.rangeStd, technology: tech)
            return AnchorRange(from: r.anchor, to: r.tag, distance: d - a.rangeBias, std: std)
        }
    }
}

/// Where the tag really was: at one known point, or along a ground-truth track.
public enum TruthSource: Sendable {
    /// Every tag at this point (site frame, metres) the whole time.
    case fixed(Vec3)
    /// Ground-truth samples (`t_ns,site,tag,x,y,z`), interpolated linearly; gaps over 0.5 s are not bridged.
    case track([TruthSample])

    /// A lookup of a tag's true position at a time (nil where unknown).
    public func lookup() -> (String, Nanoseconds) -> Vec3? {
        switch self {
        case .fixed(let p): return { _, _ in p }
        case .track(let samples):
            var byTag: [String: [TruthSample]] = [:]
            for s in samples { byTag[s.tag, default: []].append(s) }
            let sorted = byTag.mapValues { $0.sorted { $0.time < $1.time } }
            return { tag, t in sorted[tag].flatMap { TruthSource.interpolate($0, at: t) } }
        }
    }

    /// Linear interpolation in a time-sorted track; nil outside it or across a gap over 0.5 s.
    static func interpolate(_ s: [TruthSample], at t: Nanoseconds) -> Vec3? {
        var lo = 0, hi = s.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if s[mid].time < t { lo = mid + 1 } else { hi = mid }
        }
        guard lo < s.count else { return nil }
        if s[lo].time == t { return s[lo].position }
        guard lo > 0 else { return nil }
        let a = s[lo - 1], b = s[lo]
        guard b.time - a.time <= 500_000_000 else { return nil }
        let f = Double(t - a.time) / Double(b.time - a.time)
        return a.position + f * (b.position - a.position)
    }
}
