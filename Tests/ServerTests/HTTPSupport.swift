import Foundation
import Testing
import SextantTestSupport
@testable import Server

/// The HTTP tests drive the port with stock clients: curl (REST, `curl -N` for SSE), Python's
/// `websockets` (Debian's python3-websockets, for /usr/bin/python3) and promtool. `scripts/deps`
/// installs them (scripts/deps.d/http); a missing one fails the test with that hint.
enum HTTPTools {
    static let curl = "/usr/bin/curl"
    static let python = "/usr/bin/python3"
    static let promtool = "/usr/bin/promtool"

    static func require(_ path: String) {
        if !FileManager.default.isExecutableFile(atPath: path) {
            Issue.record("\(path) is missing: run scripts/deps (it installs scripts/deps.d/http)")
        }
    }
}

/// A finished run of a tool: its exit status and output.
struct ToolRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a program to its end (at most `timeout` seconds, then it is terminated).
func runTool(_ path: String, _ args: [String], stdin: String? = nil, timeout: Double = 30) throws -> ToolRun {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let out = Pipe(), err = Pipe(), input = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = input
    let done = DispatchSemaphore(value: 0)
    p.terminationHandler = { _ in done.signal() }
    try p.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try? input.fileHandleForWriting.close()
    // Read while it runs, so a full pipe never blocks it.
    let outBox = DataBox(), errBox = DataBox()
    let readers = DispatchGroup()
    for (pipe, box) in [(out, outBox), (err, errBox)] {
        DispatchQueue.global().async(group: readers) { box.data = pipe.fileHandleForReading.readDataToEndOfFile() }
    }
    if done.wait(timeout: .now() + timeout) == .timedOut { p.terminate(); done.wait() }
    readers.wait()
    return ToolRun(status: p.terminationStatus, stdout: String(decoding: outBox.data, as: UTF8.self),
                   stderr: String(decoding: errBox.data, as: UTF8.self))
}

/// Written by one reader thread, read after `DispatchGroup.wait` (which orders the two).
final class DataBox: @unchecked Sendable { var data = Data() }

/// One HTTP response as curl saw it.
struct CurlResponse {
    var status: Int
    var body: String
    var contentType: String

    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "not a JSON object: \(body.prefix(300))")
    }
}

/// A GET (or another method) with curl. `path` is sent as is (`--path-as-is`).
func curl(_ port: UInt16, _ path: String, headers: [String] = [], method: String? = nil, data: String? = nil) throws -> CurlResponse {
    HTTPTools.require(HTTPTools.curl)
    var args = ["-s", "--path-as-is", "--max-time", "20", "-o", "-", "-w", "\n%{http_code} %{content_type}"]
    for h in headers { args += ["-H", h] }
    if let method { args += ["-X", method] }
    if let data { args += ["--data", data] }
    args.append("http://127.0.0.1:\(port)\(path)")
    let r = try runTool(HTTPTools.curl, args)
    let text = r.stdout
    let split = text.lastIndex(of: "\n").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) } ?? ("", text)
    let parts = split.1.split(separator: " ", maxSplits: 1)
    return CurlResponse(status: Int(parts.first ?? "") ?? 0, body: split.0, contentType: parts.count > 1 ? String(parts[1]) : "")
}

/// A process whose standard output is read as it comes (a `curl -N` SSE stream).
final class StreamingProcess {
    let process = Process()
    private let out = Pipe()
    private(set) var text = ""

    init(_ path: String, _ args: [String]) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = args
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        _ = fcntl(out.fileHandleForReading.fileDescriptor, F_SETFL, O_NONBLOCK)
    }

    /// Reads until `condition(text)` holds or `timeout` seconds passed; returns whether it held.
    @discardableResult
    func read(timeout: Double = 10, until condition: (String) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout * testTimeScale)
        var buffer = [UInt8](repeating: 0, count: 65536)
        let fd = out.fileHandleForReading.fileDescriptor
        while Date() < end {
            if condition(text) { return true }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let n = Foundation.read(fd, &buffer, buffer.count)
            if n <= 0 { return condition(text) }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        return condition(text)
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// The value of the metric line `name value` (name with its labels) in the port's `/metrics`, or nil.
func metricValue(_ port: UInt16, _ name: String) throws -> Int? {
    let body = try curl(port, "/metrics").body
    let line = body.split(separator: "\n").first { $0.hasPrefix(name + " ") }
    return line.flatMap { Int($0.split(separator: " ").last ?? "") }
}

/// Runs a WebSocket client (Python `websockets`) that collects messages until `script` says stop;
/// the script gets `url` as `sys.argv[1]` and prints what the test checks.
func webSocketClient(_ url: String, _ script: String, args: [String] = [], timeout: Double = 30) throws -> ToolRun {
    HTTPTools.require(HTTPTools.python)
    return try runTool(HTTPTools.python, ["-c", script, url] + args, timeout: timeout)
}

extension TestService {
    /// A service with the HTTP port on a free loopback port.
    static func withHTTP(imports: [SiteFile] = [demoSiteFile], _ configure: (inout ServiceConfig) -> Void = { _ in }) throws -> TestService {
        try TestService(imports: imports) { c in
            c.http = HTTPEndpoint(host: "127.0.0.1", port: 0)
            configure(&c)
        }
    }

    var httpPort: UInt16 { service.httpPort }

    /// Sends ingest lines and waits until the history holds `rows` positions.
    func ingest(_ bytes: [UInt8], waitForHistoryRows rows: Int = 1) throws {
        let g = try gateway()
        try g.writeAll(bytes)
        waitFor(timeout: 20) { $0.historyRowsWritten >= rows }
        g.close()
    }
}
