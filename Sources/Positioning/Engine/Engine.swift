/// The positioning engine for every site: routes each event to its site's tracker.
///
/// Pure: no I/O, no clock; feed it events in time order (per site) and it emits outputs.
public struct Engine: Sendable {
    public private(set) var trackers: [String: SiteTracker]

    /// - Parameters:
    ///   - sites: the site maps; ids must be unique (the first of duplicates wins).
    public init(sites: [Site], config: EngineConfig = EngineConfig()) {
        var t: [String: SiteTracker] = [:]
        for s in sites where t[s.id] == nil { t[s.id] = SiteTracker(site: s, config: config) }
        trackers = t
    }

    /// Applies one event; outputs go to `emit`.
    /// - Throws: `EngineRejection` when the site, anchor or technology is unknown; nothing changes then.
    public mutating func handle(_ event: Event, emit: (Output) -> Void) throws(EngineRejection) {
        let siteID = event.site
        guard trackers[siteID] != nil else { throw .unknownSite(siteID) }
        try trackers[siteID]!.handle(event, emit: emit)
    }

    /// Advances every site's clock to `now` (removing silent tags).
    public mutating func advance(to now: Nanoseconds, emit: (Output) -> Void) {
        for id in trackers.keys.sorted() { trackers[id]!.advance(to: now, emit: emit) }
    }

    /// The number of tracked tags over all sites.
    public var tagCount: Int { trackers.values.reduce(0) { $0 + $1.tagCount } }
}
