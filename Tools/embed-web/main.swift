// embed-web: writes the Swift source that compiles the live map's files into the Server target.
//
//   embed-web STATIC_DIRECTORY OUTPUT_FILE
//
// Run by the EmbedWeb build-tool plugin whenever a file of Sources/Server/Web/Static changes; not by
// hand. Each file becomes a raw string constant and an entry of `StaticFiles.table`, keyed by the URL
// path it is served at (`/` for index.html, `/static/NAME` for the others).
import Foundation

/// Content types by file extension; a file of any other kind is refused.
let contentTypes = ["html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
                    "js": "text/javascript; charset=utf-8"]

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("embed-web: \(message)\n".utf8))
    exit(1)
}

/// A raw multi-line Swift string literal whose value is exactly `text`.
func literal(_ text: String, name: String) -> String {
    if text.contains("\r") { fail("\(name) has a carriage return; save it with Unix line ends") }
    var hashes = "#"
    while text.contains("\"\"\"\(hashes)") || text.contains("\\\(hashes)") { hashes += "#" }
    // The newline before the closing delimiter is not part of the value.
    return "\(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes)"
}

/// `app.js` → `appJs`: the constant's name.
func constantName(stem: String, ext: String) -> String {
    let s = stem.replacingOccurrences(of: "-", with: "_")
    return s.prefix(1).lowercased() + s.dropFirst() + ext.prefix(1).uppercased() + ext.dropFirst()
}

let args = CommandLine.arguments
guard args.count == 3 else { fail("usage: embed-web STATIC_DIRECTORY OUTPUT_FILE") }
let directory = URL(fileURLWithPath: args[1])
let names: [String]
do {
    names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { name in
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory)
            && !isDirectory.boolValue
    }.sorted()
} catch {
    fail("cannot list \(directory.path): \(error)")
}
var entries: [String] = []
var constants: [String] = []
for name in names {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    let allowed = name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
    guard allowed, parts.count == 2, let first = name.unicodeScalars.first, CharacterSet.letters.contains(first) else {
        fail("\(name): name the file NAME.EXT with letters, digits, '-' and '_' in NAME")
    }
    let stem = String(parts[0]), ext = String(parts[1])
    guard let type = contentTypes[ext] else {
        fail("\(name): no content type for '.\(ext)' files (add one to Tools/embed-web/main.swift)")
    }
    let text: String
    do {
        text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    } catch {
        fail("\(name): not readable as UTF-8: \(error)")
    }
    let constant = constantName(stem: stem, ext: ext)
    let url = name == "index.html" ? "/" : "/static/\(name)"
    entries.append("        \"\(url)\": StaticFile(text: StaticFileText.\(constant), contentType: \"\(type)\"),")
    constants.append("    /// `Static/\(name)`.\n    static let \(constant) = " + literal(text, name: name) + "\n")
}
let source = """
    // Generated at build time by the EmbedWeb plugin (Tools/embed-web) from Sources/Server/Web/Static/.

    /// One file of the live map, as served.
    public struct StaticFile: Sendable {
        /// The file's bytes.
        public let bytes: [UInt8]
        /// Its `Content-Type` header value.
        public let contentType: String

        init(text: String, contentType: String) {
            bytes = Array(text.utf8)
            self.contentType = contentType
        }
    }

    /// The live map's files (HTML, CSS, JavaScript), compiled into the binary so that the service needs no
    /// files at run time. The table is fixed: a request path is looked up as a key, never as a file name.
    public enum StaticFiles {
        /// The files by URL path: `/` is `index.html`, every other file is `/static/NAME`.
        public static let table: [String: StaticFile] = [
    \(entries.joined(separator: "\n"))
        ]

        /// The file served at a URL path (without its query string; the leading `/` may be left out, and
        /// `/index.html` is `/`), or nil for any other path.
        public static func file(at path: String) -> (bytes: [UInt8], contentType: String)? {
            guard !path.isEmpty else { return nil }
            let key = path.hasPrefix("/") ? path : "/" + path
            return table[key == "/index.html" ? "/" : key].map { ($0.bytes, $0.contentType) }
        }
    }

    /// The files' text, one constant per file.
    enum StaticFileText {
    \(constants.joined(separator: "\n"))}

    """
// Rewritten only when it changes, so that an unchanged map does not recompile the target.
let output = URL(fileURLWithPath: args[2])
if (try? String(contentsOf: output, encoding: .utf8)) != source {
    do {
        try source.write(to: output, atomically: true, encoding: .utf8)
    } catch {
        fail("cannot write \(output.path): \(error)")
    }
}
