import Foundation
import Testing

/// `TagFilter+Kernels.swift` is generated; this keeps it and its generator from drifting apart.
@Suite struct GeneratedKernelsTests {
    @Test("TagFilter+Kernels.swift is what scripts/generate-tagfilter-kernels writes")
    func kernelsMatchTheirGenerator() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", root.appendingPathComponent("scripts/generate-tagfilter-kernels").path, "--check"]
        let output = Pipe()
        p.standardOutput = output
        p.standardError = output
        try p.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(text)")
    }
}
