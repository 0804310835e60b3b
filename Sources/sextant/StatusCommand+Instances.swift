import Foundation
import Server
import Store

extension StatusCommand {
    /// `sextant status --instances`: the cluster's instances from its database, one row each.
    static func printInstances(_ a: Arguments) throws {
        let config = try ConfigFile.load(a)
        guard let url = a[database] ?? config.database, HistoryDatabase.isPostgres(url) else {
            throw CommandError.usage("status: --instances needs --database postgres://… (or a --config file with \"database\")")
        }
        let window = config.cluster?.takeoverSeconds ?? ClusterConfig(instance: "-").takeoverSeconds
        let list: [PostgresClusterLedger.Instance]
        do { list = try PostgresClusterLedger.instances(url: url, window: window) } catch {
            throw CommandError(message: "status: cannot read the cluster from the database: \(error)", code: .failure)
        }
        guard !list.isEmpty else { print("no cluster instance has used this database"); return }
        var rows = [["instance", "state", "heartbeat s", "sites"]]
        for i in list {
            rows.append([i.id, i.live ? "live" : "offline", String(format: "%.1f", i.heartbeatAge),
                         i.sites.isEmpty ? "-" : i.sites.joined(separator: ",")])
        }
        let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        for row in rows {
            print(row.enumerated().map { c, cell in
                c == row.count - 1 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0)
            }.joined(separator: "  "))
        }
    }
}
