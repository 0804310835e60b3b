import Foundation
import Testing
@testable import Store

@Suite struct HistoryWriterPriorityTests {
    /// The writer thread keeps the process's priority: a lower one (it was nice 10) lets a busy
    /// machine starve it, and rows then wait far beyond `maxDelay`, which is the loss window on a crash.
    @Test func writerThreadIsNotNiced() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-prio-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try HistoryStore(directory: dir)
        let writer = store.makeWriter(batchSize: 16, maxDelay: .milliseconds(10))
        defer { writer.close() }
        writer.append(makeEstimate(tag: "A", time: 1))
        #expect(writer.flush() == 1)   // the thread has started, run its set-up and written a batch
        let processNice = try niceValue(of: "self")
        // Only the writers' threads (named `sextant.history`): other tests running in parallel may own
        // threads that are niced on purpose, such as the retention runner.
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").filter { tid in
            (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .newlines) == "sextant.history"
        }
        #expect(!tasks.isEmpty)
        for tid in tasks {
            let nice = try niceValue(of: "self/task/\(tid)")
            #expect(nice <= processNice, "thread \(tid) runs at nice \(nice), the process at \(processNice)")
        }
    }

    /// Field 19 of /proc/<path>/stat (after the parenthesised command name).
    private func niceValue(of path: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(path)/stat", encoding: .utf8)
        let fields = text[text.index(after: text.lastIndex(of: ")")!)...].split(separator: " ")
        return Int(fields[16])!
    }
}
