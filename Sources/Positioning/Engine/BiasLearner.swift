/// Online estimation of each anchor's range bias from the residuals of well-placed tags.
///
/// Real ranging is biased (antenna delay, a cable, a wall): an uncalibrated site sees every range of an
/// anchor longer or shorter by a few centimetres to decimetres. With redundant anchors the bias of one
/// anchor shows up as a persistent residual against the position the other anchors agree on, so each
/// anchor's bias is tracked as a robust running mean of its range residuals (clipped at `clipSigmas`
/// range-σ, so that NLOS bursts and outliers move it little), learned only from tags that are placed
/// (position σ below `maxPositionStd`) and heard by at least `dimensions + 2` anchors, where the bias
/// is observable.
public struct BiasLearner: Sendable, Equatable {
    /// Bias per anchor and technology, metres (index `anchor * 2 + technology`).
    public private(set) var bias: [Double]
    /// Residuals absorbed per anchor and technology.
    public private(set) var samples: [Int]
    public let enabled: Bool
    let window: Double
    let clipSigmas: Double
    let maxBias: Double

    init(anchorCount: Int, config: EngineConfig) {
        bias = Array(repeating: 0, count: anchorCount * 2)
        samples = Array(repeating: 0, count: anchorCount * 2)
        enabled = config.learnBias
        window = Double(config.biasWindow)
        clipSigmas = config.biasClipSigmas
        maxBias = config.maxLearnedBias
    }

    @inlinable static func slot(anchor: Int, technology: Technology) -> Int {
        anchor * 2 + (technology == .uwb ? 0 : 1)
    }

    /// The learned bias of one anchor and technology, metres.
    public func bias(anchor: Int, technology: Technology) -> Double {
        bias[Self.slot(anchor: anchor, technology: technology)]
    }

    /// Absorbs one range residual (measured − predicted, with the current learned bias removed).
    /// - Parameters:
    ///   - residual: metres.
    ///   - std: the range's 1-σ noise, metres.
    mutating func learn(anchor: Int, technology: Technology, residual: Double, std: Double) {
        guard enabled else { return }
        let i = Self.slot(anchor: anchor, technology: technology)
        samples[i] += 1
        let gain = 1 / min(Double(samples[i]) + 10, window)
        let clip = clipSigmas * std
        bias[i] = max(-maxBias, min(maxBias, bias[i] + gain * max(-clip, min(clip, residual))))
    }
}
