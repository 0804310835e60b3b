import Foundation

/// The machine a run was measured on.
enum Machine {
    static var cpuModel: String {
        let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown CPU"
    }

    static var compiler: String {
        #if compiler(>=6.3)
        return "Swift ≥ 6.3"
        #elseif compiler(>=6.0)
        return "Swift 6.x (< 6.3)"
        #else
        return "Swift < 6"
        #endif
    }

    /// `swift --version`'s first line when a toolchain is on PATH, else the compile-time version.
    static var swiftVersion: String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["swift", "--version"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return compiler }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let first = String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        return p.terminationStatus == 0 && !first.isEmpty ? first : compiler
    }

    static func printHeader(quick: Bool) {
        #if DEBUG
        let build = "DEBUG build: timings are meaningless, build with -c release"
        #else
        let build = "release build"
        #endif
        print("sextant-bench\(quick ? " (--quick)" : "") — \(cpuModel), nproc \(ProcessInfo.processInfo.activeProcessorCount), "
              + "\(swiftVersion), \(build)")
    }
}
