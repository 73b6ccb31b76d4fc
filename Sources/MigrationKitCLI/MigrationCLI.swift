import ArgumentParser
import Foundation
@_exported import MigrationKitCommands
import MigrationKitKeys
import MigrationKitSQLCipher

/// Runs the `migrationkit` commands, for the tool itself and for apps that embed them.
public enum MigrationCLI {
    /// Parses `arguments` (without the program name), runs the command, prints results
    /// and errors, and returns the exit code instead of exiting. The
    /// process's handling of SIGPIPE stays the app's.
    public static func run(host: MigrationCLIHost = .sqlFiles, arguments: [String]) -> Int32 {
        run(host: host, arguments: arguments, isProcessMain: false)
    }

    /// Runs with the process's arguments and exits with the command's code; a command
    /// stopped by a signal ends the process by that signal, once it has rolled back and
    /// said what it left, so the shell running it stops as it would have (status 130 for
    /// Ctrl-C, 143 for SIGTERM). SIGPIPE is ignored, so a reader that goes away
    /// (`| head -1`) cannot end a migration half-way.
    public static func main(host: MigrationCLIHost = .sqlFiles) -> Never {
        exit(run(host: host, arguments: Array(CommandLine.arguments.dropFirst()), isProcessMain: true))
    }

    /// `run(host:arguments:)` with the command's environment, standard input, output and
    /// working folder given in `surroundings` instead of the process's: for tests, which
    /// run many command lines at once in one process. The host decides, as for any app,
    /// whether the process is hardened and signals stop the command.
    ///
    /// - Throws: `CLIError` (`.unexpectedState`) when the command cannot be given its own
    ///   working folder.
    package static func run(host: MigrationCLIHost, arguments: [String], in surroundings: CommandSurroundings) throws -> Int32 {
        try surroundings.run { run(host: host, arguments: arguments, isProcessMain: false, surroundings: surroundings.processSurroundings) }
    }

    private static func run(host: MigrationCLIHost, arguments: [String], isProcessMain: Bool,
                            surroundings: ProcessSurroundings = .process) -> Int32 {
        // ArgumentParser prints a version fixed when the command tree is declared; the
        // linked SQLCipher is only known by asking it, which no other command should pay
        // for at start-up. (`--version` among other arguments reaches the parser, and
        // the runner prints the same report: `versionReport`.)
        if arguments == ["--version"] {
            surroundings.console.out(MigrationKitVersion.report(commandName: host.commandName))
            return CLIExitCode.success.rawValue
        }
        let policy = CommandTree.ProcessPolicy(hardening: host.hardensProcess ? .atStart : .never, stopsGracefully: host.stopsGracefully,
                                               isProcessMain: isProcessMain)
        return CommandTree.run(arguments, root: RootCommand.self, layer: SQLCipherCommandLayer(host: host), policy: policy,
                               versionReport: { MigrationKitVersion.report(commandName: host.commandName) }, surroundings: surroundings)
    }
}

/// `migrationkit`: the root of every command, the tree's list over SQLCipher's layer.
struct RootCommand: ParsableCommand {
    /// Computed on each use, as the name depends on the host; ArgumentParser asks for
    /// it many times a run, so what is costly and the same for every host is made once.
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: SQLCipherCommandLayer.parsing.host.commandName,
            abstract: "Safe migrations for SQLCipher-encrypted SQLite databases.",
            discussion: discussion,
            version: MigrationKitVersion.current,
            subcommands: CommandTree.commands(for: SQLCipherCommandLayer.parsing))
    }

    private static let discussion = """
        Keys come from exactly one of \(KeySources.advice(DatabaseKeyRole.text, withVariable: false)); \
        else from \(KeySource.passwordEnvironmentVariable); else a prompt on a terminal. \
        Use --plaintext for an unencrypted database.

        Settings not given as flags come from MIGRATIONKIT_* environment variables \
        (MIGRATIONKIT_DB_PATH and the like), then from migrationkit.toml in the current folder or \
        above it (--config FILE, --database NAME); `config` shows what applies and why.

        \(CommandTree.exitCodesDiscussion)
        """
}

/// The tool's version: the one place it is written. `--version` prints it, and the
/// Debian package and `make install` take theirs from that output
/// (`scripts/package.sh`), so a release changes this line and nothing else.
enum MigrationKitVersion {
    package static let current = "0.1.0"

    /// What `--version` prints: this version on the first line, as `NAME VERSION` (the
    /// line scripts read), then the SQLCipher and SQLite the binary runs on, since a
    /// database's format and features depend on them as much as on this code. A binary
    /// built on the commands (another `commandName`) names MigrationKit's version as
    /// such, since the app's own version is not known here.
    package static func report(commandName: String) -> String {
        let name = commandName == "migrationkit" ? "migrationkit \(current)" : "\(commandName) (MigrationKit \(current))"
        let cipher = SQLCipherLibrary.cipherVersionString.map { "SQLCipher \($0)" } ?? "no SQLCipher (plain SQLite)"
        return "\(name)\n\(cipher), SQLite \(SQLCipherLibrary.sqliteVersion)"
    }
}

extension SQLCipherCommandLayer {
    /// The layer of the `MigrationCLI` command line being parsed (`ParsingLayer`); outside
    /// a run (a test that reads the tree), the tool's own.
    static var parsing: SQLCipherCommandLayer {
        ParsingLayer.current as? SQLCipherCommandLayer ?? SQLCipherCommandLayer(host: .sqlFiles)
    }
}

extension CommandWorld {
    /// The host of the `MigrationCLI` command running in this world.
    var host: MigrationCLIHost {
        (layer as? SQLCipherCommandLayer)?.host ?? .sqlFiles
    }
}
