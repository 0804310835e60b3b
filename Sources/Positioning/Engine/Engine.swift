/// The positioning engine for every site: routes each event to its site's tracker.
///
/// Pure: no I/O, no clock; feed it events in time order (per site) and it emits outputs.
public struct Engine: Sendable {
    /// One tracker per site, in the order the sites were given.
    public private(set) var siteTrackers: [SiteTracker]
    private var siteIndex: NameIndex

    /// - Parameters:
    ///   - sites: the site maps; ids must be unique (the first of duplicates wins).
    public init(sites: [Site], config: EngineConfig = EngineConfig()) {
        var index = NameIndex()
        var trackers: [SiteTracker] = []
        for s in sites where index.number(of: s.id) == nil {
            index.insert(s.id)
            trackers.append(SiteTracker(site: s, config: config))
        }
        siteTrackers = trackers
        siteIndex = index
    }

    /// The trackers by site id.
    public var trackers: [String: SiteTracker] {
        Dictionary(uniqueKeysWithValues: siteTrackers.map { ($0.site.id, $0) })
    }

    /// The tracker of one site.
    public func tracker(_ site: String) -> SiteTracker? { siteIndex.number(of: site).map { siteTrackers[$0] } }

    /// True when the engine has a tracker for `site` (without copying the tracker out, as
    /// `tracker(_:)` does).
    public func serves(site: String) -> Bool { siteIndex.number(of: site) != nil }

    /// Applies one event; outputs go to `emit`.
    /// - Throws: `EngineRejection` when the site, anchor or technology is unknown; nothing changes then.
    public mutating func handle(_ event: Event, emit: (Output) -> Void) throws(EngineRejection) {
        // A ranging line's site is read in place (`event.site` copies the 128-byte event first), and
        // the line goes to its tracker's ranging step directly: `SiteTracker.handle` would take the
        // event apart again.
        if case .ranging(let r) = event {
            guard let i = siteIndex.number(of: r.site) else { throw .unknownSite(r.site) }
            return try siteTrackers[i].handle(ranging: r, emit: emit)
        }
        guard let i = siteIndex.number(of: event.site) else { throw .unknownSite(event.site) }
        try siteTrackers[i].handle(event, emit: emit)
    }

    /// Advances every site's clock to `now` (removing silent tags).
    public mutating func advance(to now: Nanoseconds, emit: (Output) -> Void) {
        for i in siteTrackers.indices { siteTrackers[i].advance(to: now, emit: emit) }
    }

    /// What `replace(site:config:)` did.
    public enum SiteChange: Sendable, Equatable {
        /// The site was new: its tracker was added.
        case added
        /// The map differed: the site's tracker started over (its tags are placed again from their
        /// next lines).
        case replaced
        /// The same map: the tracker and its tags were kept.
        case unchanged
    }

    /// Puts a site map in place while the engine runs: a new site gets a tracker, a changed map a fresh
    /// one (tags, learned biases and anchor health start over, as their meaning depends on the map),
    /// the same map changes nothing. The other sites are untouched.
    public mutating func replace(site: Site, config: EngineConfig) -> SiteChange {
        guard let i = siteIndex.number(of: site.id) else {
            siteIndex.insert(site.id)
            siteTrackers.append(SiteTracker(site: site, config: config))
            return .added
        }
        guard siteTrackers[i].site != site else { return .unchanged }
        siteTrackers[i] = SiteTracker(site: site, config: config)
        return .replaced
    }

    /// Puts a snapshot's learned biases and anchor health in place for one site (see
    /// `SiteTracker.restore(learners:)`). - Returns: false when the site is unknown or it does not fit.
    @discardableResult
    public mutating func restore(site: String, learners: LearnerSnapshot) -> Bool {
        guard let i = siteIndex.number(of: site) else { return false }
        return siteTrackers[i].restore(learners: learners)
    }

    /// Starts one site's tracker over with the same map, silently: its tags, learned biases and anchor
    /// health are dropped, no output is emitted (another owner carries the site on).
    public mutating func reset(site: String, config: EngineConfig) {
        guard let i = siteIndex.number(of: site) else { return }
        siteTrackers[i] = SiteTracker(site: siteTrackers[i].site, config: config)
    }

    /// The number of tracked tags over all sites.
    public var tagCount: Int { siteTrackers.reduce(0) { $0 + $1.tagCount } }

    /// Every anchor of every site (sites in their order, anchors in the site's), with its health.
    public func anchorReports() -> [AnchorReport] { siteTrackers.flatMap { $0.anchorReports() } }
}
