import Testing
import Positioning
@testable import sextant

@Suite struct AnchorTableTests {
    /// `replay --anchors` and `status --anchors` print one row per anchor: its lines, the seconds since
    /// its latest (from the newest line of its site), the rejected and blocked shares of its ranges,
    /// its RMS and learned bias; an anchor never heard says so.
    @Test func theTableHasARowPerAnchor() {
        var heard = AnchorHealth()
        heard.lines = 200; heard.firstHeard = 1_000_000_000; heard.lastHeard = 3_000_000_000
        heard.ranges = 200; heard.rejected = 2; heard.blocked = 10; heard.squaredInnovations = 200 * 0.81
        var latest = AnchorHealth()
        latest.lines = 50; latest.firstHeard = 1_000_000_000; latest.lastHeard = 5_500_000_000
        let table = ReplayCommand.anchorTable([
            AnchorReport(site: "s", anchor: "A1", health: heard, learnedBias: 0.123),
            AnchorReport(site: "s", anchor: "A2", health: latest, learnedBias: -0.05),
            AnchorReport(site: "s", anchor: "A3", health: AnchorHealth(), learnedBias: 0),
        ])
        let rows = table.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(rows.count == 4, "\(table)")
        #expect(rows[0].first == "site")
        #expect(rows[1] == ["s", "A1", "200", "2.5", "1.0", "%", "5.0", "%", "0.90", "+0.123"], "\(rows[1])")
        #expect(rows[2] == ["s", "A2", "50", "0.0", "-", "-", "-", "-0.050"], "\(rows[2])")
        #expect(rows[3] == ["s", "A3", "0", "never", "heard", "-", "-", "-", "+0.000"], "\(rows[3])")
        #expect(StatusCommand.anchorTable("") == "no anchors\n")
    }
}
