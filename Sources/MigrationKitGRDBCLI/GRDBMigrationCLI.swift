import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitKeys

/// Runs the migration commands over a GRDB app's writer, for apps that embed them
/// (`grdb-notes` in Examples/GRDBNotes is one). They are the `migrationkit` tool's
/// commands — the same code (`MigrationKitCommands`), with its options, project file
/// and `MIGRATIONKIT_*` settings, backups, fleets, `--json` documents, exit codes and
/// sentences — over the app's GRDB writer instead of SQLCipher's connection.
public enum GRDBMigrationCLI {
    /// Parses `arguments` (without the program name), runs the command, prints results
    /// and errors, and returns the exit code instead of exiting. The
    /// process's handling of SIGPIPE stays the app's.
    public static func run(host: GRDBMigrationCLIHost, arguments: [String]) -> Int32 {
        run(host: host, arguments: arguments, isProcessMain: false)
    }

    /// Runs with the process's arguments and exits with the command's code; a command
    /// stopped by a signal ends the process by that signal, once it has rolled back and
    /// said what it left, and SIGPIPE is ignored, as the `migrationkit` tool does.
    public static func main(host: GRDBMigrationCLIHost) -> Never {
        exit(run(host: host, arguments: Array(CommandLine.arguments.dropFirst()), isProcessMain: true))
    }

    /// `run(host:arguments:)` with the command's environment, standard input and output
    /// given in `surroundings` instead of the process's: for tests, which run command
    /// lines in their own process and read back what each printed.
    package static func run(host: GRDBMigrationCLIHost, arguments: [String], in surroundings: ProcessSurroundings) -> Int32 {
        run(host: host, arguments: arguments, isProcessMain: false, surroundings: surroundings)
    }

    private static func run(host: GRDBMigrationCLIHost, arguments: [String], isProcessMain: Bool,
                            surroundings: ProcessSurroundings = .process) -> Int32 {
        let layer = GRDBCommandLayer(host: host)
        // Inside the app's process: hardened just before a key is read, so `--plaintext`
        // (and a GRDB on plain SQLite, which reads none) leaves it as it was.
        let policy = CommandTree.ProcessPolicy(hardening: host.hardensProcess ? .beforeKeyIsRead : .never,
                                               stopsGracefully: host.stopsGracefully, isProcessMain: isProcessMain)
        return CommandTree.run(arguments, root: GRDBRootCommand.self, layer: layer, policy: policy, surroundings: surroundings)
    }
}

/// The root of the GRDB commands: the tree's list over the GRDB layer, which adds none.
struct GRDBRootCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        // Outside a run (a test that reads the tree), as the app built it.
        let layer = ParsingLayer.current ?? GRDBCommandLayer(host: GRDBMigrationCLIHost(commandName: "migrationkit-grdb"))
        let database = layer.library.encrypts
            ? """
              GRDB here is built on SQLCipher: the database is encrypted, with the key from exactly one of \
              \(KeySources.advice(DatabaseKeyRole.text, withVariable: false)); otherwise \
              \(KeySource.passwordEnvironmentVariable), else a prompt on a terminal. --plaintext works on an unencrypted database.
              """
            : "On Linux, GRDB uses the system SQLite here: the database is not encrypted, and the key options do not apply."
        return CommandConfiguration(
            commandName: layer.commandName,
            abstract: "Safe migrations for this app's GRDB database.",
            discussion: """
                \(database)

                Settings not given as flags come from MIGRATIONKIT_* environment variables, then from \
                migrationkit.toml in the current folder or above it (--config FILE, --database NAME); \
                `config` shows what applies and why.

                \(CommandTree.exitCodesDiscussion)
                """,
            subcommands: CommandTree.commands(for: layer))
    }
}
