import Positioning
import Wire
import Pipeline

/// The service's checks on a decoded event before the engine sees it, in order: the source's token
/// covers the event's site, the timestamp is plausible (`PlausibleTimestamps`), and it lies inside
/// the clock window (`TimestampWindow`).
struct EventChecks {
    var window: TimestampWindow?
    var plausible: PlausibleTimestamps?
    /// Cluster mode: the sites this instance owns now (nil: not in a cluster, every site).
    var owned: Set<String>? = nil

    /// The rejection of `event` from line `line` (timestamps in `unit`), or nil when it passes.
    /// - Parameter sites: the sites the source's token may write.
    func refusal(of event: Event, line: Int, unit: TimestampPrecision, sites: SiteFilter) -> LineRejection? {
        if !sites.allows(event.site) {
            return LineRejection(line: line, key: "site_not_allowed",
                                 message: "line \(line): this connection's token may not write site '\(event.site)'")
        }
        if let owned, !owned.contains(event.site) {
            return LineRejection(line: line, key: "site_not_allowed",
                                 message: "line \(line): site '\(event.site)' is owned by another instance of the cluster (sextant status --instances)")
        }
        if let plausible, !plausible.contains(event.time) {
            return plausible.rejection(line: line, time: event.time, precision: unit)
        }
        if let window, !window.contains(event.time) {
            return window.rejection(line: line, time: event.time)
        }
        return nil
    }
}
