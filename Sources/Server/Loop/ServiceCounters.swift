/// The service's counters, stored once in a `ServiceStats` that every component updates in place
/// (lines in, connections, refusals, authentication failures, the server's own rejection keys).
/// `ServiceLoop.stats()` copies it and adds what other owners keep (the pipeline's counts, the feed
/// hub's, the history sink's, the gauges).
///
/// Touched only on the loop thread (every component that holds it is owned by the loop).
final class ServiceCounters {
    var stats = ServiceStats()

    init() {
        for key in IngestAdmission.serverRejectionKeys { stats.rejected[key] = 0 }
    }

    /// Counts a rejection decided by the service itself (not by the pipeline, which counts its own).
    func rejected(_ key: String) {
        stats.rejected[key, default: 0] += 1
    }
}
