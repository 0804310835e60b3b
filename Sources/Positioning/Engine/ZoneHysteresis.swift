/// Zone membership with hysteresis: decides, from a tag's position and its uncertainty, when the
/// tag enters or leaves each zone of a site, so that a tag standing on a boundary does not flicker.
///
/// With `h = max(k·σ, margin)` (σ the position's 1-σ horizontal radius, k = `zoneSigmaK`, margin =
/// `zoneMargin`), a tag enters a zone when it is inside the polygon by more than `h` (distance to the
/// nearest edge) and leaves it when it is outside by more than `h`; in between, its membership does not
/// change. On 3-D sites a zone's `minZ`/`maxZ` limit it in height the same way, with `σz = sqrt(czz)`:
/// inside means inside both horizontally and vertically by more than the thresholds, outside means
/// outside either by more than its threshold. On 2-D sites height limits are ignored (z is fixed).
/// A change also needs `zoneConfirmations` consecutive estimates beyond the band (a single noisy
/// estimate 2 σ out is common; several in a row are not); the event carries the time of the estimate
/// that confirms it. Pure: values in, events out.
struct ZoneHysteresis: Sendable {
    let zones: [Zone]
    let threeD: Bool
    let sigmaK: Double
    let margin: Double
    let confirmations: Int

    init(site: Site, config: EngineConfig) {
        zones = site.zones
        threeD = site.dimensions == 3
        sigmaK = config.zoneSigmaK
        margin = config.zoneMargin
        confirmations = max(1, config.zoneConfirmations)
    }

    /// Updates a tag's membership (one entry per zone) for a new estimate, emitting an `.zone` output
    /// per change, exits before enters, each in zone order.
    func update(_ p: PositionEstimate, inside: inout [ZoneMembership], emit: (Output) -> Void) {
        guard !zones.isEmpty else { return }
        if inside.count != zones.count { inside = Array(repeating: ZoneMembership(), count: zones.count) }
        let h = max(sigmaK * p.sigma, margin)
        let hz = max(sigmaK * max(0, p.covZZ).squareRoot(), margin)
        var entered: [Int] = []
        for (i, zone) in zones.enumerated() {
            let d = zone.signedDistance(x: p.position.x, y: p.position.y)
            let dz = threeD ? zone.signedHeightDistance(z: p.position.z) : .infinity
            let beyond = inside[i].inside ? (d < -h || dz < -hz) : (d > h && dz > hz)
            inside[i].streak = beyond ? inside[i].streak + 1 : 0
            guard inside[i].streak >= confirmations else { continue }
            inside[i].streak = 0
            inside[i].inside.toggle()
            if inside[i].inside {
                entered.append(i)
            } else {
                emit(.zone(site: p.site, tag: p.tag, zone: zone.id, event: .exit, time: p.time))
            }
        }
        for i in entered {
            emit(.zone(site: p.site, tag: p.tag, zone: zones[i].id, event: .enter, time: p.time))
        }
    }

    /// Exit events for every zone in `inside`, for a tag being removed at `time`.
    func exitAll(site: String, tag: String, inside: [ZoneMembership], time: Nanoseconds, emit: (Output) -> Void) {
        for (i, m) in inside.enumerated() where m.inside && i < zones.count {
            emit(.zone(site: site, tag: tag, zone: zones[i].id, event: .exit, time: time))
        }
    }
}

/// A tag's membership of one zone: inside or not, and how many consecutive estimates so far were
/// beyond the band on the other side.
struct ZoneMembership: Sendable, Equatable {
    var inside = false
    var streak = 0
}
