import Foundation
import Testing
import Positioning
@testable import sextant

/// `sextant replay` of the lines that trapped the engine (SIGILL, exit 132): they are applied or
/// refused, and the run ends normally.
@Suite struct ReplayExtremeTimeTests {
    @Test("replay takes lines stamped Int64.min, -7.5e18 and Int64.max among current ones")
    func extremeTimestamps() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let site = dir.appendingPathComponent("site.json").path, input = dir.appendingPathComponent("in.lp").path
        let output = dir.appendingPathComponent("out.lp").path
        try Site.demoWarehouseJSON.write(toFile: site, atomically: true, encoding: .utf8)
        let now: Int64 = 1_700_000_000_000_000_000
        var text = ""
        for (tag, time) in [("T1", Int64.min), ("T2", now), ("T2", -7_500_000_000_000_000_000), ("T3", .max),
                            ("T3", now), ("T4", now + 1_000_000)] {
            text += "ranging,site=demo-warehouse,anchor=U1,tag=\(tag) distance=3 \(time)\n"
        }
        try text.write(toFile: input, atomically: true, encoding: .utf8)
        try ReplayCommand.run(["--site", site, "--input", input, "--output", output])
        let out = try String(contentsOfFile: output, encoding: .utf8)
        // T4's line at a current time is still answered (a proximity line: one anchor cannot place it).
        #expect(out.contains("tag=T4"), "\(out)")
    }
}
