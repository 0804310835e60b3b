import Foundation
import Numerics
import Positioning
#if canImport(Glibc)
import Glibc
#endif

/// Memory per tracked tag: `MemoryLayout<TagFilter>` and the resident-set growth while an engine places
/// 100,000 tags (each ranged once by its 6 nearest anchors, exact distances, within 5 s so that none
/// times out). Run in a child process (`sextant-bench _memory-probe N`) so that the RSS is not
/// distorted by what the parent allocated and freed before.
enum MemoryProbe {
    struct Result { var tags: Int; var placed: Int; var before: Int; var after: Int }

    static let perTagTarget = 1024, totalTarget = 300 * 1_048_576

    /// Resident bytes from /proc/self/statm (0 where unavailable).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The probe itself (in whatever process runs it).
    static func probe(tags: Int) -> Result {
        let site = Throughput.hall
        let start: Nanoseconds = 1_700_000_000_000_000_000
        let step = Nanoseconds(5e9) / Nanoseconds(tags)
        var rng = SeededRandom(seed: 11)
        let before = residentBytes()
        var engine = Engine(sites: [site])
        for k in 0..<tags {
            let p = Vec3(rng.nextUniform(1, 59), rng.nextUniform(1, 39), rng.nextUniform(0.3, 4))
            let nearest = site.anchors.sorted { ($0.position - p).norm < ($1.position - p).norm }.prefix(6)
            let tag = "M" + String(k)
            for (i, a) in nearest.enumerated() {
                let r = Ranging(site: site.id, anchor: a.id, tag: tag, distance: (a.position - p).norm,
                                time: start + Nanoseconds(k) * step + Nanoseconds(i))
                try? engine.handle(.ranging(r)) { _ in }
            }
        }
        let after = residentBytes()
        let placed = engine.trackers[site.id]?.estimates.count ?? 0
        withExtendedLifetime(engine) {}
        return Result(tags: tags, placed: placed, before: before, after: after)
    }

    /// Runs the probe in a child process (falls back to this process when that fails).
    static func measureInChild(tags: Int) -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if let exe = Bundle.main.executableURL { p.executableURL = exe }
        p.arguments = ["_memory-probe", "\(tags)"]
        let pipe = Pipe()
        p.standardOutput = pipe
        if (try? p.run()) != nil {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            let v = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            if p.terminationStatus == 0, v.count == 4 { return Result(tags: v[0], placed: v[1], before: v[2], after: v[3]) }
        }
        print("  (memory probe: child process failed; measuring in this process)")
        return probe(tags: tags)
    }

    static func report(_ r: Result) {
        let growth = r.after - r.before
        let perTag = Double(growth) / Double(max(1, r.tags))
        var t = Table("Memory (RSS growth while one engine holds \(Fmt.count(r.tags)) tags; \(Fmt.count(r.placed)) placed)",
                      columns: ["figure", "value", "target", "verdict"])
        t.add(["MemoryLayout<TagFilter>.size", "\(MemoryLayout<TagFilter>.size) B (stride \(MemoryLayout<TagFilter>.stride))",
               "≤ 1 KB", Verdicts.check("filter state per tag", MemoryLayout<TagFilter>.size <= perTagTarget)])
        t.add(["engine state per tag (RSS growth ÷ tags)", "\(Int(perTag.rounded())) B", "", ""])
        t.add(["\(Fmt.count(r.tags)) tags, RSS growth", Fmt.f(Double(growth) / 1_048_576, 1) + " MB", "≤ 300 MB",
               Verdicts.check("100k tags memory", growth <= totalTarget && r.placed == r.tags)])
        t.print()
        if r.placed < r.tags { print("  note: only \(Fmt.count(r.placed)) of \(Fmt.count(r.tags)) tags were placed") }
    }
}
