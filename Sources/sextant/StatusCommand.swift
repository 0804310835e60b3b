import Foundation
import Server

/// `sextant status`: asks a running service for its counters.
enum StatusCommand {
    static let help = """
        USAGE: sextant status [--host H] [--port P] [--lp] [--token-file FILE]

        Connects to a running service's feed port, sends '#stats', and prints its counters (lines in,
        rejected by reason, positions out, feed clients, dropped feed lines, history rows written, …)
        as 'key value' lines. Exits with 1 when the service cannot be reached.

        OPTIONS:
          --host H       the service's address (default 127.0.0.1)
          --port P       its feed port (default 7401)
          --lp           print the one 'sextant_stats' line-protocol line instead
          --timeout S    give up after S seconds (default 5)
          --token-file FILE  a file holding the feed token, when the service requires one (the
                         environment variable SEXTANT_FEED_TOKEN works too; a token is never taken
                         on the command line, where other users could read it)
          -h, --help     show this help
        """

    static func run(_ argv: [String]) throws {
        let a = try Arguments(argv, command: "status", options: ["host", "port", "timeout", "token-file"], switches: ["lp"])
        if a.wantsHelp { print(help); return }
        let host = a.string("host") ?? "127.0.0.1"
        let port = UInt16(try a.int("port", default: 7401, in: 1...65535))
        let timeout = try a.double("timeout", default: 5, in: 0.1...3600)
        var token = ProcessInfo.processInfo.environment["SEXTANT_FEED_TOKEN"]
        if let path = a.string("token-file") {
            token = String(decoding: try readFile(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let text: String
        do {
            text = try StatsClient.request(host: host, port: port, lineProtocol: a.flag("lp"), timeout: timeout,
                                           token: token)
        } catch {
            throw CommandError(message: "status: cannot reach the service at \(host):\(port): \(error)", code: .failure)
        }
        if text.hasPrefix("# error: ") {
            throw CommandError(message: "status: the service refused: \(text.dropFirst(9).trimmingCharacters(in: .newlines))",
                               code: .failure)
        }
        if a.flag("lp") { print(text, terminator: ""); return }
        let pairs = ServiceStats.parse(commentLines: text)
        guard !pairs.isEmpty else { throw CommandError(message: "status: no counters in the reply", code: .failure) }
        let width = pairs.map(\.0.count).max() ?? 0
        for (k, v) in pairs { print(k.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + v) }
    }
}
