import Numerics

extension Simulator {
    /// Anchor-to-anchor ranges, as `sextant survey calibrate` reads them: ranging events whose tag is
    /// another anchor's id. Every pair of anchors that share UWB (else Channel Sounding) and are at
    /// most `maxRange` metres apart ranges `perPair` times, alternating which one measures. Each range
    /// is the true distance plus the measuring anchor's `rangeBias` plus Gaussian noise of its
    /// `rangeStd` (else the technology's default), which the line also carries as `std`.
    /// - Parameters:
    ///   - site: the site, with the anchors' true positions.
    ///   - perPair: ranges per pair (≥ 1).
    ///   - maxRange: longest pair that ranges, metres.
    ///   - seed: the random seed: the same seed gives the same ranges.
    ///   - start: the first range's time, Unix nanoseconds; the ranges are 50 ms apart.
    public static func anchorRanges(site: Site, perPair: Int, maxRange: Double = 40, seed: UInt64,
                                    start: Nanoseconds = 1_700_000_000_000_000_000) -> [Ranging] {
        let spacing: Nanoseconds = 50_000_000
        var rng = SeededRandom(seed: seed, stream: 0x616e_6368)   // "anch"
        var out: [Ranging] = []
        let anchors = site.anchors
        for i in anchors.indices {
            for j in anchors.indices where j > i {
                let a = anchors[i], b = anchors[j]
                guard let tech = [Technology.uwb, .cs].first(where: { a.technologies.contains($0) && b.technologies.contains($0) })
                else { continue }
                let d = (a.position - b.position).norm
                guard d <= maxRange else { continue }
                for k in 0..<max(1, perPair) {
                    let (from, to) = k % 2 == 0 ? (a, b) : (b, a)
                    let std = from.rangeStd ?? tech.defaultRangeStd
                    let time = start + Nanoseconds(out.count + 1) * spacing
                    out.append(Ranging(site: site.id, anchor: from.id, tag: to.id, technology: tech,
                                       distance: d + from.rangeBias + std * rng.nextGaussian(), std: std, time: time))
                }
            }
        }
        return out
    }
}
