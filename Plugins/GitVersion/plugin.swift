import Foundation
import PackagePlugin

/// Writes `gitVersion` (the git description of the checkout, from `scripts/version`) into the target.
/// A prebuild command, because its input (the repository state) is not a file the build system could
/// watch; SwiftPM runs it whenever it plans a build (a fresh checkout, a changed manifest or set of
/// files), and the script rewrites the file only when the version changed.
@main struct GitVersion: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        let script = context.package.directoryURL.appending(path: "scripts/version")
        return [.prebuildCommand(displayName: "Version from git describe",
                                 executable: URL(fileURLWithPath: "/bin/bash"),
                                 arguments: [script.path, "--swift", output.appending(path: "GitVersion.swift").path],
                                 outputFilesDirectory: output)]
    }
}
