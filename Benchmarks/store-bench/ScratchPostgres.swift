import Foundation

/// A database created on a PostgreSQL server for one benchmark run with `psql`, and dropped after.
struct ScratchPostgres {
    let url: String
    private let server: String, name: String

    /// Creates `name` on `server` (dropping a leftover of the same name first).
    init(server: String, name: String) throws {
        self.server = server
        self.name = name
        try Self.psql(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        try Self.psql(server, "CREATE DATABASE \(name)")
        guard let slash = server.range(of: "/", options: .backwards), server[..<slash.lowerBound].hasSuffix("//") == false
        else { url = server + "/" + name; return }
        url = String(server[..<slash.lowerBound]) + "/" + name
    }

    /// Runs `sql` in the database.
    func execute(_ sql: String) throws { try Self.psql(url, sql) }

    func drop() { try? Self.psql(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }

    /// CPU seconds used so far by the server's processes (the postmaster, its live children, and the
    /// children it reaped), read from /proc; nil when the server is not on this machine.
    func serverCPUSeconds() -> Double? {
        guard let checkpointer = try? Self.psqlValue(server, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'"),
              let stat = Self.stat(Int(checkpointer) ?? -1), let postmaster = Int(stat[1]),
              let root = Self.stat(postmaster) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var total = (11...14).map { Double(root[$0]) ?? 0 }.reduce(0, +)  // utime, stime, cutime, cstime
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int(entry), pid != postmaster, let s = Self.stat(pid), Int(s[1]) == postmaster else { continue }
            total += (Double(s[11]) ?? 0) + (Double(s[12]) ?? 0)
        }
        return total / ticks
    }

    /// Fields of /proc/PID/stat after the command name: [0] state, [1] ppid, … [11] utime, [12] stime.
    private static func stat(_ pid: Int) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    private static func psqlValue(_ url: String, _ sql: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        p.arguments = ["-Atq", url, "-c", sql]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func psql(_ url: String, _ sql: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        p.arguments = ["-q", "-v", "ON_ERROR_STOP=1", "-c", "SET client_min_messages = warning", "-c", sql, url]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw NSError(domain: "store-bench", code: Int(p.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "psql failed: \(sql)"])
        }
    }
}
