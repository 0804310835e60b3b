import Foundation
import Numerics

/// `sextant-bench`: the accuracy and throughput benchmarks. Programs that print figures,
/// each next to its target and a baseline measured in the same run.
let help = """
    USAGE: sextant-bench <command> [--quick]

    COMMANDS:
      accuracy     LIAS real data vs textbook methods; simulated scenarios vs the posterior Cramér–Rao
                   bound; NLOS/outliers; sparse anchors; 95 % coverage; RTS smoothing gain
      throughput   2,000 tags × 16 anchors 3-D stream through decode → filters → encode, on one core;
                   NumPy EKF baseline; memory per tag
      all          both
      bearing      only the direction-only room of `accuracy` (section 4c)
      stream DIR   write the throughput stream (DIR/hall.lp) and its site map (DIR/hall.json), for
                   profiling with `sextant replay` (`--quick`: the 5 s stream)

    OPTIONS:
      --quick      shorter simulations (CI-friendly)
      --seed-offset K
                   add K to every simulated scenario's seed in `accuracy` (default 0: the figures of
                   docs/benchmarks.md), to check that a figure is not an accident of one seed
      -h, --help   show this help

    Build and run from the package root:
      swift build -c release --product sextant-bench && .build/release/sextant-bench all
    """

// Like `sextant`: one BLAS thread, set before any LAPACK call, so that OpenBLAS's worker thread stays
// idle instead of spinning on the second core beside the measured thread.
LAPACK.useOneThread()

var args = Array(CommandLine.arguments.dropFirst())
if args.first == "_memory-probe" {   // internal: the child process of MemoryProbe.measureInChild
    let r = MemoryProbe.probe(tags: args.count > 1 ? Int(args[1]) ?? 100_000 : 100_000)
    print(r.tags, r.placed, r.before, r.after)
    exit(0)
}
if args.isEmpty || args.contains("-h") || args.contains("--help") || args == ["help"] {
    print(help)
    exit(args.isEmpty ? 64 : 0)
}
let quick = args.contains("--quick")
args.removeAll { $0 == "--quick" }
if let i = args.firstIndex(of: "--seed-offset") {
    guard i + 1 < args.count, let k = UInt64(args[i + 1]) else {
        FileHandle.standardError.write(Data("sextant-bench: --seed-offset needs a whole number ≥ 0; see --help\n".utf8))
        exit(64)
    }
    SimulatedAccuracy.seedOffset = k
    args.removeSubrange(i...(i + 1))
}
if args.count == 2, args[0] == "stream" {
    Throughput.writeStream(to: args[1], quick: quick)
    exit(0)
}
guard args.count == 1, ["accuracy", "throughput", "all", "bearing"].contains(args[0]) else {
    FileHandle.standardError.write(Data("sextant-bench: unknown arguments \(args.joined(separator: " ")); see --help\n".utf8))
    exit(64)
}
let command = args[0]
Machine.printHeader(quick: quick)
if command == "accuracy" || command == "all" { Accuracy.run(quick: quick) }
if command == "throughput" || command == "all" { Throughput.run(quick: quick) }
if command == "bearing" { BearingAccuracy.run(quick: quick) }
Verdicts.printSummary()
