import Foundation
import Positioning
import Survey

/// `sextant survey`: the site-survey tools, as nested subcommands.
enum SurveyCommand {
    static var subcommands: [Subcommand] { [
        Subcommand(name: "coverage", summary: "map the expected accuracy over the site (PNG, SVG or PDF)", run: SurveyCoverageCommand.run),
        Subcommand(name: "plan", summary: "suggest where to add anchors, up to a count or a target accuracy", run: SurveyPlanCommand.run),
        Subcommand(name: "calibrate", summary: "anchor self-positioning from anchor-to-anchor ranges", run: SurveyCalibrateCommand.run),
        Subcommand(name: "anchors", summary: "check each anchor's mapped position against its ranges, without truth", run: SurveyAnchorsCommand.run),
        Subcommand(name: "bias", summary: "estimate each anchor's range bias and noise from a tag at known positions", run: SurveyBiasCommand.run),
        Subcommand(name: "report", summary: "accuracy report of a recording, with or without truth: figures + HTML", run: SurveyReportCommand.run),
    ] }

    static var help: String { """
        USAGE: sextant survey <subcommand> [options]

        Tools for installers: where positioning will be good, where the anchors really are, their range
        bias, and the accuracy a recording proves.

        SUBCOMMANDS:
        \(subcommands.listing(column: 11))

        Run 'sextant survey <subcommand> --help' for its options.
        """ }

    static func run(_ argv: [String]) throws {
        guard let first = argv.first else { throw CommandError.usage(help) }
        if first == "--help" || first == "-h" || first == "help" { print(help); return }
        try subcommands.named(first, unknown: "survey: unknown subcommand", help: help).run(Array(argv.dropFirst()))
    }
}

/// Progress of long work on standard error, rewritten in place with `\r`; silent when standard error
/// is not a terminal.
final class ProgressLine {
    private let label: String
    private let enabled = isatty(STDERR_FILENO) != 0
    private var shown = -1

    init(_ label: String) { self.label = label }

    /// Shows the share done (0…1) when the whole percentage changes.
    func update(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int((max(0, min(1, fraction)) * 100).rounded(.down))
        guard percent != shown else { return }
        shown = percent
        FileHandle.standardError.write(Data("\r\(label) \(percent) %".utf8))
    }

    /// Clears the line.
    func finish() {
        guard enabled, shown >= 0 else { return }
        FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: label.count + 8) + "\r").utf8))
        shown = -1
    }
}

/// Helpers shared by the survey subcommands.
enum SurveyIO {
    /// `--site FILE`, the site map every survey subcommand reads.
    static let site = Option.text("site", "FILE", help: "the site map (JSON)")

    /// Writes bytes to a file (73 when it cannot be created).
    static func write(_ bytes: [UInt8], to path: String) throws {
        let sink = try OutputSink(path)
        try sink.write { $0.append(contentsOf: bytes) }
        try sink.flush()
    }

    /// The image format of an output path by its extension: .png, .svg or .pdf (usage error otherwise).
    static func imageFormat(_ path: String, command: String) throws(CommandError) -> ImageFormat {
        guard let format = ImageFormat(path: path) else {
            throw .usage("\(command): --out must end in .png, .svg or .pdf, got '\(path)'")
        }
        return format
    }

    /// Renders a figure, turning a drawing failure into exit code 1.
    static func render(_ command: String, _ body: () throws(RenderError) -> [UInt8]) throws -> [UInt8] {
        do { return try body() } catch { throw CommandError(message: "\(command): \(error)", code: .failure) }
    }

    /// Writes a coverage map as PNG, SVG or PDF by the path's extension.
    static func writeMap(_ map: CoverageMap, to path: String, command: String, title: String? = nil,
                         highlight: Set<String> = []) throws {
        let format = try imageFormat(path, command: command)
        try write(try render(command) { () throws(RenderError) in
            try CoverageFigure.render(map, format: format, title: title, highlight: highlight)
        }, to: path)
    }

    /// Reads and decodes an ingest file, reporting rejected lines on standard error.
    static func readInput(_ path: String, command: String) throws -> SurveyInput {
        let input = SurveyInput(bytes: try readFile(path))
        if input.rejected > 0 {
            printError("\(command): \(path): \(input.rejected) line(s) rejected; first: "
                       + (input.rejectionMessages.first ?? "-"))
        }
        return input
    }

    /// Reads a ground-truth CSV (65 on a bad line).
    static func readTruth(_ path: String) throws -> [TruthSample] {
        do { return try TruthCSV.parse(bytes: try readFile(path)) } catch let e as TruthCSVError {
            throw CommandError.data("\(path): \(e)")
        }
    }
}
