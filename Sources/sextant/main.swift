import BuildInfo
import Foundation
import Numerics

let subcommands: [Subcommand] = [
    Subcommand(name: "demo", summary: "simulate the demo warehouse, position it, and show the result", run: DemoCommand.run),
    Subcommand(name: "replay", summary: "position a recorded ingest stream (line protocol in, positions out)", run: ReplayCommand.run),
    Subcommand(name: "simulate", summary: "write a synthetic ingest stream for a site, and its ground truth", run: SimulateCommand.run),
    Subcommand(name: "evaluate", summary: "compare positions with ground truth: RMSE, percentiles, availability", run: EvaluateCommand.run),
    Subcommand(name: "serve", summary: "run the live service: TCP ingest, live feed, SQLite history", run: ServeCommand.run),
    Subcommand(name: "status", summary: "print a running service's counters", run: StatusCommand.run),
    Subcommand(name: "site", summary: "import, export (JSON, GeoJSON), list, show and remove stored site maps", run: SiteCommand.run),
    Subcommand(name: "history", summary: "export stored positions (CSV, line protocol, GeoJSON) or recorded lines", run: HistoryCommand.run),
    Subcommand(name: "zones", summary: "zone entries, exits and dwell time per tag, from the stored zone events", run: ZonesCommand.run),
    Subcommand(name: "survey", summary: "site survey: coverage maps, anchor and bias calibration, accuracy reports", run: SurveyCommand.run),
]

let usage = """
    sextant: indoor positioning from UWB and Bluetooth Channel Sounding ranging

    USAGE: sextant <command> [options]

    COMMANDS:
    \(subcommands.listing(column: 10))

    Run 'sextant <command> --help' for a command's options, 'sextant --version' for the version.
    """

/// Prints to standard error.
func printError(_ s: String) {
    FileHandle.standardError.write(Data((s + "\n").utf8))
}

// OpenBLAS (Debian's pthread build) starts its worker threads when it loads, before `main`, and they
// would spin on every LAPACK call: on a 2-core gateway box they steal the core the service needs.
// Sextant's LAPACK problems are tiny, so it runs with one BLAS thread, set here before any LAPACK call
// (without re-executing: the process keeps its name, `sextant`, in ps, top and ss).
LAPACK.useOneThread()

let args = Array(CommandLine.arguments.dropFirst())
guard let first = args.first, first != "--help", first != "-h", first != "help" else {
    print(usage)
    do { try StandardOutput.finish(command: "help") } catch {
        printError((error as? CommandError)?.message ?? "\(error)")
        exit(ExitCode.ioError.rawValue)
    }
    exit(args.isEmpty ? ExitCode.usage.rawValue : 0)
}
if first == "--version" {
    print("sextant \(BuildInfo.version)")
    exit(0)
}
let command: Subcommand
do { command = try subcommands.named(first, unknown: "sextant: unknown command", help: usage) } catch {
    printError(error.message)
    exit(error.code.rawValue)
}
do {
    try command.run(Array(args.dropFirst()))
    try StandardOutput.finish(command: command.name)
} catch let e as CommandError {
    printError(e.message)
    exit(e.code.rawValue)
} catch {
    printError("sextant \(command.name): \(error)")
    exit(ExitCode.failure.rawValue)
}
