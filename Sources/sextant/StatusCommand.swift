import Foundation
import Server
import Wire

/// `sextant status`: asks a running service for its counters.
enum StatusCommand {
    static let help = """
        USAGE: sextant status [--host H] [--port P] [--anchors] [--lp] [--token-file FILE]

        Connects to a running service's feed port, sends '#stats', and prints its counters (lines in,
        rejected by reason, positions out, feed clients, dropped feed lines, history rows written,
        silent anchors, …) as 'key value' lines. Exits with 1 when the service cannot be reached.

        With --anchors it sends '#anchors' and prints a table, one row per anchor: its ranging lines,
        the seconds since its latest one, the shares of its ranges rejected and taken for blocked
        paths (NLOS), the RMS of its normalised innovations (1 or less when it agrees with the
        others; lines faster than 5 Hz per tag give less, as their σ is inflated for correlated
        errors; an anchor that was moved shows several times the others'), and the range bias
        learned for it.

        OPTIONS:
          --host H       the service's address (default 127.0.0.1)
          --port P       its feed port (default 7401)
          --anchors      the anchors' health instead of the counters
          --lp           print line protocol instead: the one 'sextant_stats' line, or with --anchors
                         the 'anchor_health' lines
          --timeout S    give up after S seconds (default 5)
          --token-file FILE  a file holding the feed token, when the service requires one (the
                         environment variable SEXTANT_FEED_TOKEN works too; a token is never taken
                         on the command line, where other users could read it)
          -h, --help     show this help
        """

    static func run(_ argv: [String]) throws {
        let a = try Arguments(argv, command: "status", options: ["host", "port", "timeout", "token-file"], switches: ["lp", "anchors"])
        if a.wantsHelp { print(help); return }
        let host = a.string("host") ?? "127.0.0.1"
        let port = UInt16(try a.int("port", default: 7401, in: 1...65535))
        let timeout = try a.double("timeout", default: 5, in: 0.1...3600)
        var token = ProcessInfo.processInfo.environment["SEXTANT_FEED_TOKEN"]
        if let path = a.string("token-file") {
            token = String(decoding: try readSmallFile(path, limit: 1 << 16, kind: "a token file"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let text: String
        do {
            text = a.flag("anchors")
                ? try StatsClient.request("#anchors", host: host, port: port, timeout: timeout, token: token)
                : try StatsClient.request(host: host, port: port, lineProtocol: a.flag("lp"), timeout: timeout,
                                          token: token)
        } catch {
            throw CommandError(message: "status: cannot reach the service at \(host):\(port): \(error)", code: .failure)
        }
        if text.hasPrefix("# error: ") {
            throw CommandError(message: "status: the service refused: \(text.dropFirst(9).trimmingCharacters(in: .newlines))",
                               code: .failure)
        }
        if a.flag("lp") { print(text, terminator: ""); return }
        if a.flag("anchors") { print(anchorTable(text), terminator: ""); return }
        let pairs = ServiceStats.parse(commentLines: text)
        guard !pairs.isEmpty else { throw CommandError(message: "status: no counters in the reply", code: .failure) }
        let width = pairs.map(\.0.count).max() ?? 0
        for (k, v) in pairs { print(k.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + v) }
    }

    /// The `#anchors` reply as an aligned table (a site with no anchor line prints nothing).
    static func anchorTable(_ text: String) -> String {
        var rows = [["site", "anchor", "lines", "silent s", "rejected", "blocked", "innov. RMS", "learned bias m"]]
        func percent(_ part: Int64, _ whole: Int64) -> String {
            whole > 0 ? String(format: "%.1f %%", 100 * Double(part) / Double(whole)) : "-"
        }
        for raw in text.split(separator: "\n") {
            guard let line = try? ParsedLine.parse(String(raw)), line.measurement == "anchor_health" else { continue }
            func int(_ k: String) -> Int64 { Int64(line.field(k)?.doubleValue ?? 0) }
            let ranges = int("ranges")
            rows.append([line.tag("site") ?? "?", line.tag("anchor") ?? "?", String(int("lines")),
                         line.field("silent_s")?.doubleValue.map { String(format: "%.1f", $0) } ?? "never heard",
                         percent(int("rejected"), ranges), percent(int("blocked"), ranges),
                         line.field("innovation_rms")?.doubleValue.map { String(format: "%.2f", $0) } ?? "-",
                         String(format: "%+.3f", line.field("learned_bias")?.doubleValue ?? 0)])
        }
        guard rows.count > 1 else { return "no anchors\n" }
        let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { c, cell in
                c < 2 ? cell.padding(toLength: widths[c], withPad: " ", startingAt: 0)
                      : String(repeating: " ", count: widths[c] - cell.count) + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
