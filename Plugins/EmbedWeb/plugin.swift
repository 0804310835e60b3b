import Foundation
import PackagePlugin

/// Compiles the live map's files (`Sources/TARGET/Web/Static/`) into the target: a build command that
/// runs `embed-web` (Tools/embed-web) on them whenever one changes, is added or is removed, and adds
/// the Swift file it writes (`StaticFiles`, `StaticFileText`) to the target's sources.
@main struct EmbedWeb: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let directory = context.package.directoryURL.appending(path: "Sources/\(target.name)/Web/Static")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let output = context.pluginWorkDirectoryURL.appending(path: "StaticFiles.swift")
        return [.buildCommand(displayName: "Embedding the live map's files",
                              executable: try context.tool(named: "embed-web").url,
                              arguments: [directory.path, output.path],
                              // The directory too, so that a file added or removed reruns it.
                              inputFiles: [directory] + names.map { directory.appending(path: $0) },
                              outputFiles: [output])]
    }
}
