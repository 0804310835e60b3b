import Pipeline
import Positioning

/// The one place that knows the smoother's API: `EngineConfig.recordForSmoothing` and
/// `SiteTracker.smoothedEstimates()` (fixed-interval Rauch–Tung–Striebel, `TrajectorySmoother`).
///
/// SMOOTHER HOOK: if that API changes, adapt these two functions; when no smoother exists, make
/// `isAvailable` false and the bench prints "smoother: not available".
enum Smoothing {
    static let isAvailable = true

    /// Turns on the recording of every filter step that the smoother needs.
    static func enableRecording(_ config: inout EngineConfig) {
        config.recordForSmoothing = true
    }

    /// The smoothed version of every emitted position of `site`, after the whole input was fed.
    static func smoothedEstimates(_ pipeline: Pipeline, site: Site) -> [EstimateSample] {
        guard let tracker = pipeline.engine.trackers[site.id] else { return [] }
        return tracker.smoothedEstimates().map(EstimateSample.init)
    }
}
