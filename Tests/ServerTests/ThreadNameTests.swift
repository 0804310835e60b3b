import Foundation
import Testing
import SextantTestSupport
@testable import Server

@Suite struct ThreadNameTests {
    /// The names of this process's threads (Linux: /proc/self/task/*/comm).
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// A running service's event loop and history writer carry names that `top -H` and `perf` show
    /// (the benchmark finds the loop's CPU time by that name).
    @Test func theLoopAndTheWriterThreadsAreNamed() throws {
        let t = try TestService()
        defer { t.stop() }
        // The threads name themselves as they start: once a position is written, both have run.
        try t.gateway().writeAll(demoLines(tags: 1, seconds: 1))
        #expect(t.waitFor { $0.historyRowsWritten > 0 }.historyRowsWritten > 0)
        let names = Self.threadNames()
        #expect(names.contains(Service.loopThreadName))
        #expect(Service.loopThreadName == "sextant.loop")
        #expect(names.contains("sextant.history"))
    }
}
