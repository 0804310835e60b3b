import Foundation
import Testing
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
        var names = Self.threadNames()
        let deadline = Date().addingTimeInterval(5)   // the threads name themselves once running
        while !(names.contains(Service.loopThreadName) && names.contains("sextant.history")) && Date() < deadline {
            usleep(10_000)
            names = Self.threadNames()
        }
        #expect(names.contains(Service.loopThreadName))
        #expect(Service.loopThreadName == "sextant.loop")
        #expect(names.contains("sextant.history"))
    }
}
