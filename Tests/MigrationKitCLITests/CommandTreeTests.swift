import ArgumentParser
@testable import MigrationKitCLI
@testable import MigrationKitCommands
import Testing

/// A new subcommand is its own file plus one line in `CommandTree`'s list (or, for one
/// only SQLCipher's connection has, in `SQLCipherCommandLayer.ownCommands`). What else a
/// command must be is declared on the type and checked here over the whole tree, so a
/// command that forgets it fails a test instead of quietly printing text errors under
/// `--json` or ignoring `migrationkit.toml`.
@Suite struct CommandTreeTests {
    /// The commands a user runs: every command without subcommands of its own.
    private static func runnableCommands(under command: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
        let subcommands = command.configuration.subcommands
        return subcommands.isEmpty ? [command] : subcommands.flatMap { runnableCommands(under: $0) }
    }

    private let commands = Self.runnableCommands(under: RootCommand.self)

    @Test func theTreeHoldsEveryCommand() {
        let names = Set(commands.map { $0._commandName })
        for expected in ["migrate", "status", "rollback", "verify", "schema-dump", "diff", "new", "init", "config", "encrypt",
                         "decrypt", "rekey", "cipher-upgrade", "restore", "baseline", "adopt", "lint", "check", "generate",
                         "store", "delete"] {
            #expect(names.contains(expected), "\(expected) is missing from the command tree: \(names.sorted())")
        }
    }

    /// The commands every database layer gets are `migrationkit`'s too: one tree, with
    /// SQLCipher's own commands beside it (a GRDB app's tree is the shared part alone).
    @Test func theToolRunsEverySharedCommand() {
        let tool = Set(RootCommand.configuration.subcommands.map { ObjectIdentifier($0) })
        for shared in CommandTree.sharedCommands {
            #expect(tool.contains(ObjectIdentifier(shared)), "\(shared) is shared but missing from migrationkit's tree")
        }
    }

    /// `CommandTree.run` hands the parsed command its world through `WorldCommand`; a
    /// command without it would fall to ArgumentParser's default `run()`, print its
    /// help and exit 0 having done nothing. Declared by hand on each type, so checked
    /// over the whole tree here.
    @Test func everyCommandRunsInTheWorldItIsHanded() {
        #expect(commands.count >= 21)
        for command in commands {
            #expect(command is any WorldCommand.Type,
                    "\(command) does not conform to WorldCommand: `CommandTree.run` would print its help and exit 0")
        }
    }

    /// Whether a failure is printed as JSON comes from the parsed `--json` of a command
    /// that has the output options; any other command's failures would be plain text.
    @Test func everyCommandPrintsThroughTheOutputOptions() {
        for command in commands {
            #expect(command is any PrintsOutput.Type,
                    "\(command) does not conform to PrintsOutput: its failures would not be JSON under --json")
        }
    }

    /// A command with the connection options takes `--db-path`, the key and the rest from
    /// the environment and the project file too, as every other such command does.
    @Test func everyCommandWithConnectionOptionsTakesProjectSettings() {
        var withConnection = 0
        for command in commands {
            let options = Mirror(reflecting: command.init()).children.map { String(describing: type(of: $0.value)) }
            guard options.contains(where: { $0.contains("ConnectionOptions") }) else { continue }
            withConnection += 1
            #expect(command is any ProjectConfigurable.Type,
                    "\(command) has the connection options but does not read migrationkit.toml or the environment")
        }
        #expect(withConnection >= 10, "the connection options were not found on the commands that have them")
    }

    /// The commands that name one database and work on nothing else: each has a reason.
    /// Every other command with the connection options works on each database of a
    /// fleet alone, and so takes the fleet selectors through the one engine.
    private static let singleDatabaseCommands: [String: String] = [
        "schema-dump": "prints one schema (to standard output or --output)",
        "restore": "puts one backup file back",
        "lint": "judges the migrations folder, against one database at most",
        "new": "writes a migration file",
        "init": "writes a project file",
        "config": "shows the settings that apply",
    ]

    @Test func everyPerDatabaseCommandTakesTheFleetSelectors() {
        var fleets: [String] = []
        for command in commands {
            let options = Mirror(reflecting: command.init()).children.map { String(describing: type(of: $0.value)) }
            guard options.contains(where: { $0.contains("ConnectionOptions") }), Self.singleDatabaseCommands[command._commandName] == nil else { continue }
            let name = command._commandName
            #expect(options.contains { $0.contains("FleetOptions") }, "\(name) works on one database at a time but takes no --db-glob, --db-list, --shard or --jobs")
            #expect(command is any FleetCommand.Type || name == "migrate", "\(name) does not run its fleet on the one engine (FleetCommand)")
            fleets.append(name)
        }
        // README.md names these twelve.
        #expect(Set(fleets) == ["migrate", "status", "verify", "rollback", "baseline", "adopt", "optimize", "diff", "rekey", "cipher-upgrade", "encrypt", "decrypt"], "\(fleets.sorted())")
    }
}
