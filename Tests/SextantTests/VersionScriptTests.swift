import Foundation
import Testing

/// `scripts/version` outside a git checkout (a source tarball): the changelog's version, else "unknown".
@Suite struct VersionScriptTests {
    /// Copies `scripts/version` into a fresh directory outside any git checkout and runs it there.
    /// - Parameter insideRepository: unpack the copy in a subdirectory of another git repository (with a
    ///   tagged commit), whose description it must not take.
    private func runCopy(changelog: String?, _ arguments: [String] = [], insideRepository: Bool = false) throws -> String {
        let outer = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-version-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outer) }
        let dir = insideRepository ? outer.appendingPathComponent("sextant-0.2.1") : outer
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("scripts"), withIntermediateDirectories: true)
        if insideRepository {
            for git in [["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"],
                        ["-c", "user.name=t", "-c", "user.email=t@t", "tag", "-a", "v9.9.9", "-m", "x"]] {
                let g = Process()
                g.executableURL = URL(fileURLWithPath: "/usr/bin/git")
                g.arguments = ["-C", outer.path] + git
                try g.run()
                g.waitUntilExit()
                try #require(g.terminationStatus == 0, "git \(git)")
            }
        }
        let script = dir.appendingPathComponent("scripts/version")
        try FileManager.default.copyItem(at: SextantProcess.packageRoot.appendingPathComponent("scripts/version"), to: script)
        if let changelog { try Data(changelog.utf8).write(to: dir.appendingPathComponent("CHANGELOG.md")) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [script.path] + arguments
        p.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: try out.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return text
    }

    @Test("without git: the first released version in CHANGELOG.md, skipping Unreleased")
    func changelogVersion() throws {
        let changelog = "# Changelog\n\n## [Unreleased]\n\n- a change\n\n## [0.2.1] - 2026-12-01\n\n## [0.2.0] - 2026-11-01\n"
        #expect(try runCopy(changelog: changelog) == "0.2.1\n")
        #expect(try runCopy(changelog: changelog, ["--deb"]) == "0.2.1\n")
        #expect(try runCopy(changelog: changelog, insideRepository: true) == "0.2.1\n", "took the outer repository's v9.9.9")
    }

    @Test("without git and without a changelog version: unknown (Debian 0.0.0)")
    func unknownVersion() throws {
        #expect(try runCopy(changelog: nil) == "unknown\n")
        #expect(try runCopy(changelog: "# Changelog\n\n## Unreleased\n") == "unknown\n")
        #expect(try runCopy(changelog: nil, ["--deb"]) == "0.0.0\n")
    }
}
