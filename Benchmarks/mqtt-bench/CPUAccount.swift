import Foundation

/// CPU seconds of the broker's process and of this process's threads by name, read from /proc, so
/// that a phase can say where its CPU went (the broker, the service's threads, the load's clients).
struct CPUAccount {
    /// Seconds by owner: "broker", a service thread's name (`sextant.loop`, `sextant.mqtt-in`, …), or
    /// "load" (the publishers' and subscribers' threads, and the rest of this process).
    var seconds: [String: Double] = [:]
    /// Times the loop thread went to sleep (voluntary context switches of `sextant.loop`): its wake-ups.
    var loopWakeUps = 0
    /// Times the loop thread was preempted while it could run (involuntary context switches).
    var loopPreempted = 0

    /// The owners printed, in order.
    static let owners = ["broker", "sextant.loop", "sextant.mqtt-in", "sextant.mqtt-out", "sextant.history", "load"]

    /// Now. `brokerPID` nil: the broker is not on this machine (only this process is counted).
    static func now(brokerPID: Int32?) -> CPUAccount {
        var a = CPUAccount()
        if let pid = brokerPID, let s = stat("/proc/\(pid)/stat") { a.seconds["broker", default: 0] += s.cpu }
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for t in tasks {
            guard let s = stat("/proc/self/task/\(t)/stat") else { continue }
            // The kernel keeps 15 bytes of a thread's name ("sextant.mqtt-ou").
            let owner = owners.first { $0 != "broker" && $0.prefix(15) == s.name } ?? "load"
            a.seconds[owner, default: 0] += s.cpu
            if owner == "sextant.loop" {
                let (v, i) = switches("/proc/self/task/\(t)/status")
                a.loopWakeUps += v
                a.loopPreempted += i
            }
        }
        return a
    }

    static func - (a: CPUAccount, b: CPUAccount) -> CPUAccount {
        var d = CPUAccount()
        for (k, v) in a.seconds { d.seconds[k] = v - (b.seconds[k] ?? 0) }
        d.loopWakeUps = a.loopWakeUps - b.loopWakeUps
        d.loopPreempted = a.loopPreempted - b.loopPreempted
        return d
    }

    var total: Double { seconds.values.reduce(0, +) }

    /// "broker 1.23 · sextant.loop 2.34 · … µs per line; total T µs = at most N lines/s on C cores".
    func perLine(_ lines: Int, cores: Int) -> String {
        let parts = Self.owners.compactMap { k in seconds[k].map { String(format: "%@ %.2f", k, $0 / Double(lines) * 1e6) } }
        let perLine = total / Double(lines)
        return parts.joined(separator: " · ") + String(format: " µs CPU per line; total %.2f µs, so %d cores carry at most %.0f lines/s",
                                                       perLine * 1e6, cores, Double(cores) / perLine)
    }

    /// (`voluntary_ctxt_switches`, `nonvoluntary_ctxt_switches`) of a /proc status file.
    private static func switches(_ path: String) -> (Int, Int) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Int {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return (field("voluntary_ctxt_switches"), field("nonvoluntary_ctxt_switches"))
    }

    /// (comm, utime + stime in seconds) of a /proc stat file.
    private static func stat(_ path: String) -> (name: String, cpu: Double)? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let u = Double(fields[11]), let s = Double(fields[12]) else { return nil }
        return (String(text[text.index(after: open)..<close]), (u + s) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The process listening on 127.0.0.1:`port` (the broker), found through its socket's inode.
    static func listener(port: Int) -> Int32? {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return nil }
        let hexPort = String(format: "%04X", port)
        var inode: String?
        for line in table.split(separator: "\n").dropFirst() {
            let f = line.split(separator: " ")
            if f.count > 9, f[1].hasSuffix(":" + hexPort), f[3] == "0A" { inode = String(f[9]); break }
        }
        guard let inode else { return nil }
        let target = "socket:[\(inode)]"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            for fd in fds where (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) == target {
                return pid
            }
        }
        return nil
    }
}
