import ArgumentParser
@testable import MigrationKitCommands
@testable import MigrationKitGRDBCLI
import Testing

/// A GRDB app's commands are the command tree's shared commands — the same types the
/// `migrationkit` tool runs (its CommandTreeTests checks they are all in its tree) —
/// and each prints through the output options, so its failures are JSON under `--json`.
@Suite struct GRDBCommandTreeTests {
    @Test func theAppGetsEverySharedCommand() {
        let commands = GRDBRootCommand.configuration.subcommands
        #expect(commands.map { ObjectIdentifier($0) } == CommandTree.sharedCommands.map { ObjectIdentifier($0) })
        #expect(Set(commands.map { $0._commandName })
            == ["migrate", "status", "rollback", "verify", "schema-dump", "diff", "new", "init", "config", "baseline", "adopt", "lint", "check", "restore", "optimize"])
        for command in commands {
            #expect(command is any PrintsOutput.Type, "\(command) does not conform to PrintsOutput")
        }
    }
}
