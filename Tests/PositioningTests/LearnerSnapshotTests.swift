import Foundation
import Testing
import Numerics
@testable import Positioning

/// A tracker's learners saved as a value and restored onto a fresh tracker of the same site carry on
/// exactly where they were: the same learned biases and anchor health, bit for bit.
@Suite struct LearnerSnapshotTests {
    /// The atrium with a 0.3 m bias on A2, its map without: the learner has something to learn.
    static let biased = atrium(biases: [0, 0.3, 0, 0, 0, 0, 0, 0])
    static var map: Site {
        var m = biased
        for i in m.anchors.indices { m.anchors[i].rangeBias = 0 }
        return m
    }

    @Test func restoredLearnersContinueBitForBit() throws {
        var events: [Event] = []
        Simulator(site: Self.biased, config: SimulationConfig(tags: 3, duration: 40, seed: 11)).generate(into: { events.append($0) })
        let cut = events.count * 3 / 4
        var original = SiteTracker(site: Self.map)
        for e in events[..<cut] { try? original.handle(e) { _ in } }
        let snapshot = original.learnersSnapshot()
        #expect(snapshot.isConsistent)
        #expect(snapshot.samples.contains { $0 > 0 } && snapshot.anchorHealth.contains { $0.lines > 0 }, "the learners learned nothing: nothing to carry over")

        // Through JSON, as the cluster stores it; Codable must keep every Double exactly.
        let decoded = try JSONDecoder().decode(LearnerSnapshot.self, from: JSONEncoder().encode(snapshot))
        #expect(decoded == snapshot)

        var restored = SiteTracker(site: Self.map)
        let accepted = restored.restore(learners: decoded)
        #expect(accepted)
        #expect(restored.learnedBias == original.learnedBias)
        #expect(restored.anchorReports() == original.anchorReports())
        // A fresh tracker without the snapshot has learned nothing.
        #expect(SiteTracker(site: Self.map).learnedBias != original.learnedBias)
    }

    @Test func snapshotOfAnotherSiteIsRefused() {
        let snapshot = SiteTracker(site: Self.map).learnersSnapshot()
        var other = SiteTracker(site: .demoWarehouse)
        let before = other.learnedBias
        let accepted = other.restore(learners: snapshot)
        #expect(!accepted)
        #expect(other.learnedBias == before)
        var broken = snapshot
        broken.info.removeLast()
        var same = SiteTracker(site: Self.map)
        let acceptedBroken = same.restore(learners: broken)
        #expect(!broken.isConsistent && !acceptedBroken)
    }
}
