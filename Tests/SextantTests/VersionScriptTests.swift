import Foundation
import Testing

/// `scripts/version` outside a git checkout (a source tarball): the changelog's version, else "unknown";
/// inside one, the git description, "-dirty" only for edited content.
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
            try git(outer, ["init", "-q"])
            try git(outer, ["commit", "-q", "--allow-empty", "-m", "x"])
            try git(outer, ["tag", "-a", "v9.9.9", "-m", "x"])
        }
        try FileManager.default.copyItem(at: SextantProcess.packageRoot.appendingPathComponent("scripts/version"),
                                         to: dir.appendingPathComponent("scripts/version"))
        if let changelog { try Data(changelog.utf8).write(to: dir.appendingPathComponent("CHANGELOG.md")) }
        return try runScript(in: dir, arguments)
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

    /// Runs git in `dir`, as a committer with a fixed name.
    private func git(_ dir: URL, _ arguments: [String]) throws {
        let g = Process()
        g.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        g.arguments = ["-C", dir.path, "-c", "user.name=t", "-c", "user.email=t@t"] + arguments
        g.standardOutput = FileHandle.nullDevice
        try g.run()
        g.waitUntilExit()
        try #require(g.terminationStatus == 0, "git \(arguments)")
    }

    /// Runs the copy of `scripts/version` in `dir`.
    private func runScript(in dir: URL, _ arguments: [String] = []) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [dir.appendingPathComponent("scripts/version").path] + arguments
        p.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: try out.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return text
    }

    @Test("in a checkout with or without tags: a touched file is not an edit, a changed one is -dirty")
    func touchedIsNotDirty() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sextant-version-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("scripts"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: SextantProcess.packageRoot.appendingPathComponent("scripts/version"),
                                         to: dir.appendingPathComponent("scripts/version"))
        let file = dir.appendingPathComponent("Package.swift")
        try Data("// a manifest\n".utf8).write(to: file)
        try git(dir, ["init", "-q"])
        try git(dir, ["add", "."])
        try git(dir, ["commit", "-q", "-m", "x"])
        let untagged = try runScript(in: dir)
        #expect(untagged.hasPrefix("0.0.0-1-g") && !untagged.contains("dirty"), "\(untagged)")

        // What scripts/package does before it builds: a newer time, the same content.
        func touch() throws {
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: file.path)
        }
        try touch()
        #expect(try runScript(in: dir) == untagged)
        try git(dir, ["tag", "-a", "v1.2.3", "-m", "x"])
        try touch()
        #expect(try runScript(in: dir) == "1.2.3\n")

        try Data("// an edited manifest\n".utf8).write(to: file)
        #expect(try runScript(in: dir) == "1.2.3-dirty\n")
        try git(dir, ["tag", "-d", "v1.2.3"])
        #expect(try runScript(in: dir) == untagged.dropLast() + "-dirty\n")
    }
}
