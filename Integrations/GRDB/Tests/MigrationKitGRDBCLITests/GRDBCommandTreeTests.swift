import ArgumentParser
import MigrationKitCommands
@testable import MigrationKitGRDBCLI
import Testing

/// As for the `migrationkit` commands (CommandTreeTests): every GRDB command prints
/// through the output options, so its failures are JSON under `--json`.
@Suite struct GRDBCommandTreeTests {
    @Test func everyCommandPrintsThroughTheOutputOptions() {
        let commands = GRDBRootCommand.configuration.subcommands
        #expect(Set(commands.map { $0._commandName }) == ["migrate", "status", "rollback", "verify", "schema-dump"])
        for command in commands {
            #expect(command is any PrintsOutput.Type, "\(command) does not conform to PrintsOutput")
        }
    }
}
