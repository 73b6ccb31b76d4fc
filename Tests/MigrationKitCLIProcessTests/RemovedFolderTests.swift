import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// A shell whose current folder was removed after it entered it: the process can no longer
/// name its folder (`getcwd` fails), so `migrationkit.toml` cannot be looked for there. A
/// command says so in one sentence with exit 9, at once; it used to search upwards for
/// ever, at full CPU, and SIGTERM waited for a stop point it never reached. With the file
/// named, nothing is looked for, and the command runs.
@Suite struct RemovedFolderTests {
    private func inRemovedFolder(_ workspace: Workspace, _ arguments: [String]) throws -> ChildProcessResult {
        let gone = workspace.path("gone")
        try FileManager.default.createDirectory(atPath: gone, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: gone) }
        return try ChildProcess.run(["/bin/sh", "-c", "cd \"$1\" && rmdir \"$1\" && shift 2 && exec \"$0\" \"$@\"", Binary.migrationkit, gone, "-"]
                                    + arguments, environment: Binary.environment(), timeout: 30)
    }

    @Test func aCommandInARemovedFolderSaysSoAtOnce() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let refused = try inRemovedFolder(workspace, ["status"] + workspace.options())
        #expect(!refused.timedOut && refused.exitCode == .fileError, "\(refused)")
        #expect(refused.errorLines == ["migrationkit: error: The current folder no longer exists (it was removed after this shell entered it), "
            + "so migrationkit.toml cannot be looked for there; cd to a folder that exists, or name the file with --config."], "\(refused)")

        try workspace.write("migrationkit.toml", "", mode: 0o600)
        let named = try inRemovedFolder(workspace, ["status", "--config", workspace.path("migrationkit.toml")] + workspace.options())
        #expect(!named.timedOut && named.status == 0, "\(named)")
        #expect(named.stdout.contains("pending  0001_authors"), "\(named)")
    }
}
