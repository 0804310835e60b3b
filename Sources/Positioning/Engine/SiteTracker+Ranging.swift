internal import Numerics

extension SiteTracker {
    /// Validates one ranging line and hands it to the tag's track, updated in place.
    mutating func handleRanging(_ r: Ranging, emit: (Output) -> Void) throws(EngineRejection) {
        guard let a = context.anchorNumber(r.anchor) else { throw .unknownAnchor(site: site.id, anchor: r.anchor) }
        let tech: Technology
        if let t = r.technology {
            guard context.anchorSupports(a, t) else {
                throw .unsupportedTechnology(anchor: r.anchor, technology: t)
            }
            tech = t
        } else {
            // The anchor's first technology; an anchor without any supports none.
            guard !context.anchorTechnologies[a].isEmpty else {
                throw .unsupportedTechnology(anchor: r.anchor, technology: .uwb)
            }
            tech = context.anchorTechnology[a]
        }
        // Disjoint stored properties: the track is modified in place while the learners are modified
        // beside it and the context is read.
        var number = tracks.number(of: r.tag)
        if number == nil {
            try admitNewTag()
            number = tracks.insert(r.tag, TagTrack(anchorCount: context.anchorPositions.count, time: r.time,
                                                   config: context.config))
        }
        if let late = context.ranging(r, anchorIndex: a, technology: tech, track: &tracks.tracks[number!],
                                      learners: &learners, emit: emit) {
            throw .late(seconds: Double(late) * 1e-9, limit: context.config.maxLateness)
        }
    }
}
