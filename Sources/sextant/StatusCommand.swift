import Foundation
import Server
import Wire

/// `sextant status`: asks a running service for its counters.
enum StatusCommand {
    static let about = """
        USAGE: sextant status [--host H] [--port P] [--config FILE] [--anchors] [--lp] [--token-file FILE]
               sextant status --instances [--database URL | --config FILE]

        Connects to a running service's feed port, sends '#stats', and prints its counters (lines in,
        rejected by reason, positions out, feed clients, dropped feed lines, history rows written,
        silent anchors, …) as 'key value' lines. Exits with 1 when the service cannot be reached.

        With --anchors it sends '#anchors' and prints a table, one row per anchor: its ranging lines,
        the seconds since its latest one, the shares of its ranges rejected and taken for blocked
        paths (NLOS), the RMS of its normalised innovations (1 or less when it agrees with the
        others; lines faster than 5 Hz per tag give less, as their σ is inflated for correlated
        errors; an anchor that was moved shows several times the others'), and the range bias
        learned for it.

        With --config FILE (the service's JSON config) it connects to that service: its feedPort, and
        its bind address (loopback when the service listens on every interface), and, when the file has
        feedTokens, one of them (the first that covers every site, else the first); --host, --port,
        --token-file and SEXTANT_FEED_TOKEN win.

        With --instances it reads the cluster's PostgreSQL database (--database, else the --config file's
        "database") instead and prints one row per instance of the cluster: live or offline, the seconds
        since its heartbeat, and the sites it owns (docs/scaling.md).
        """

    static let host = Option.text("host", "H", help: "the service's address", defaultText: "127.0.0.1, or the --config file's bind")
    static let port = Option.integer("port", "P", in: 1...65535, help: "its feed port",
                                     defaultText: "\(ServiceConfig().feedPort), or the --config file's feedPort")
    static let anchors = Option.flag("anchors", help: "the anchors' health instead of the counters")
    static let lp = Option.flag("lp", help: """
        print line protocol instead: the one 'sextant_stats' line, or with --anchors the 'anchor_health' lines
        """)
    static let timeout = Option.number("timeout", "S", default: 5, in: 0.1...3600, help: "give up after S seconds")
    static let tokenFile = Option.text("token-file", "FILE", help: """
        a file holding the feed token, when the service requires one (the environment variable \
        SEXTANT_FEED_TOKEN works too; a token is never taken on the command line, where other users could read it)
        """)
    static let instances = Option.flag("instances", help: "the cluster's instances and the sites each owns, from the database")
    static let database = Option<String?>.text("database", "URL", help: "with --instances: the cluster's postgres:// database",
                                      defaultText: "the --config file's database")
    static let spec = CommandSpec("status", about: about, options: [
        host.spec, port.spec, anchors.spec, lp.spec, timeout.spec, tokenFile.spec, ConfigFile.option.spec,
        instances.spec, database.spec,
    ])
    static var help: String { spec.help }

    /// Where the service is: the flags, else the `--config` file's bind address and feed port, else
    /// 127.0.0.1:7401.
    static func address(_ a: Arguments) throws -> (host: String, port: UInt16) {
        let config = try ConfigFile.load(a)
        let host = a[Self.host] ?? (a.given(ConfigFile.option) ? connectable(config.bindAddress) : "127.0.0.1")
        if let p = a[port] { return (host, UInt16(p)) }
        guard config.feedPort != 0 else {
            throw CommandError.usage("status: the config file's feedPort is 0 (any free port); give --port")
        }
        return (host, config.feedPort)
    }

    /// The feed token to present: `--token-file`, else `SEXTANT_FEED_TOKEN`, else one of the
    /// `--config` file's `feedTokens` (the first that sees every site, else the first); nil: none.
    static func token(_ a: Arguments, environment: [String: String]) throws -> String? {
        if let path = a[tokenFile] {
            return String(decoding: try readSmallFile(path, limit: 1 << 16, kind: "a token file"), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let token = environment["SEXTANT_FEED_TOKEN"] { return token }
        guard a.given(ConfigFile.option) else { return nil }
        let list = try ConfigFile.load(a).feedTokens
        return (list.tokens.first { $0.sites == nil } ?? list.tokens.first)?.secret
    }

    /// The address to connect to for a bind address: loopback for a wildcard one.
    static func connectable(_ bind: String) -> String {
        switch bind {
        case "0.0.0.0": "127.0.0.1"
        case "::", "[::]": "::1"
        default: bind
        }
    }

    static func run(_ argv: [String]) throws {
        let a = try spec.parse(argv)
        if a.wantsHelp { print(help); return }
        if a[instances] { try printInstances(a); return }
        let (host, port) = try address(a)
        let timeout = a[Self.timeout]
        let token = try token(a, environment: ProcessInfo.processInfo.environment)
        let text: String
        do {
            text = a[anchors]
                ? try StatsClient.request("#anchors", host: host, port: port, timeout: timeout, token: token)
                : try StatsClient.request(host: host, port: port, lineProtocol: a[lp], timeout: timeout,
                                          token: token)
        } catch {
            throw CommandError(message: "status: cannot reach the service at \(host):\(port): \(error)", code: .failure)
        }
        if text.hasPrefix("# error: ") {
            throw CommandError(message: "status: the service refused: \(text.dropFirst(9).trimmingCharacters(in: .newlines))",
                               code: .failure)
        }
        if a[lp] { print(text, terminator: ""); return }
        if a[anchors] { print(anchorTable(text), terminator: ""); return }
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
