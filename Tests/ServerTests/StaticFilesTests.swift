import Foundation
import Testing
import Server

/// The live map's files compiled into the binary (by the EmbedWeb build-tool plugin, Tools/embed-web,
/// from `Sources/Server/Web/Static/`).
@Suite struct StaticFilesTests {
    static let staticDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Server/Web/Static")

    /// The source files by the URL path they are served at.
    static func sources() throws -> [String: [UInt8]] {
        let names = try FileManager.default.contentsOfDirectory(atPath: staticDirectory.path)
        var files: [String: [UInt8]] = [:]
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: staticDirectory.appendingPathComponent(name)))
            files[name == "index.html" ? "/" : "/static/\(name)"] = bytes
        }
        return files
    }

    @Test("every file of Web/Static is served byte for byte at its path, and nothing else is in the table")
    func generatedMatchesSources() throws {
        let sources = try Self.sources()
        #expect(sources.count >= 3)
        #expect(Set(StaticFiles.table.keys) == Set(sources.keys), "the EmbedWeb plugin did not run after a file was added or removed")
        for (path, bytes) in sources {
            let served = try #require(StaticFiles.file(at: path), "\(path)")
            let same = served.bytes == bytes   // compared as a Bool: a failure would print every byte
            #expect(same, "\(path) differs from its source: the EmbedWeb plugin did not run after it was edited")
        }
    }

    @Test("content types follow the file's kind")
    func contentTypes() throws {
        #expect(StaticFiles.file(at: "/")?.contentType == "text/html; charset=utf-8")
        #expect(StaticFiles.file(at: "/index.html")?.bytes == StaticFiles.file(at: "/")?.bytes)
        #expect(StaticFiles.file(at: "static/app.js")?.bytes == StaticFiles.file(at: "/static/app.js")?.bytes)
        for (path, file) in StaticFiles.table {
            if path.hasSuffix(".js") { #expect(file.contentType == "text/javascript; charset=utf-8", "\(path)") }
            if path.hasSuffix(".css") { #expect(file.contentType == "text/css; charset=utf-8", "\(path)") }
        }
    }

    @Test("paths outside the fixed table get nothing: traversal, encodings, case, trailing parts",
          arguments: ["/static/../Package.swift", "/static/%2e%2e/Package.swift", "/static/..%2fPackage.swift",
                      "/../Sources/Server/Web/Static/app.js", "/static/", "/static", "/static/app.js/", "//static/app.js",
                      "/static/./app.js", "/static/APP.JS", "/static/app.js?x=1", "/static/app.js%00", "/etc/passwd",
                      "/static/StaticFiles.swift", "/Static/app.js", "/app.js", "/static/app", ""])
    func refusesOtherPaths(_ path: String) {
        let served = StaticFiles.file(at: path) != nil
        #expect(!served, "\(path)")
    }

    /// The page loads its stylesheet and scripts from `/static/`, and the modules import each other by
    /// relative name: each of those must be in the table, or the page breaks in the browser.
    @Test("every file the page and its modules refer to is in the table")
    func referencesResolve() throws {
        let index = String(decoding: try #require(StaticFiles.file(at: "/")).bytes, as: UTF8.self)
        var referenced: Set<String> = []
        for m in index.matches(of: /(?:src|href)="(\/static\/[^"]+)"/) { referenced.insert(String(m.1)) }
        #expect(referenced.contains("/static/app.js") && referenced.contains("/static/map.css"))
        for (path, file) in StaticFiles.table where path.hasSuffix(".js") {
            let text = String(decoding: file.bytes, as: UTF8.self)
            for m in text.matches(of: /from "\.\/([A-Za-z0-9_-]+\.js)"/) { referenced.insert("/static/" + m.1) }
        }
        #expect(referenced.count >= 5)
        for path in referenced { #expect(StaticFiles.file(at: path) != nil, "\(path) is referred to but not served") }
    }
}
