/// What a site's tracker learns from every tag's lines, beside the tags' own tracks: the anchors'
/// biases, the recording for smoothing, and each anchor's health. A line's step changes the tag's
/// track and these (`TrackerContext.ranging`).
struct SiteLearners: Sendable {
    /// Range biases (and `aoa` angle offsets) learned online, per anchor and technology.
    var bias: BiasLearner
    /// The recording for offline smoothing, when enabled (`EngineConfig.recordForSmoothing`).
    var smoother: TrajectorySmoother?
    /// Per anchor (site order): its lines and how its ranges fared (`SiteTracker.anchorReports`).
    var anchorHealth: [AnchorHealth]

    init(site: Site, config: EngineConfig) {
        bias = BiasLearner(anchorCount: site.anchors.count, config: config,
                           angleSlots: site.anchors.contains { $0.technologies.contains(.aoa) })
        smoother = config.recordForSmoothing ? TrajectorySmoother(dimensions: site.dimensions) : nil
        anchorHealth = Array(repeating: AnchorHealth(), count: site.anchors.count)
    }
}
