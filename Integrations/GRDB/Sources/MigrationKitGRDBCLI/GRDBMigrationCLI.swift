import ArgumentParser
import Foundation
import MigrationKitCommands

/// Runs the migration commands over a GRDB app's writer, for apps that embed them
/// (`grdb-notes` in Examples/GRDBNotes is one). Exit codes, output, `--json` documents
/// and error sentences are the `migrationkit` tool's (they come from the same
/// `MigrationKitCommands`); only the database layer differs.
public enum GRDBMigrationCLI {
    /// Parses `arguments` (without the program name), runs the command, prints results
    /// and errors, and returns the exit code instead of exiting.
    public static func run(host: GRDBMigrationCLIHost, arguments: [String]) -> Int32 {
        // No --allow-out-of-order or --accept-modified here: a refusal must not suggest them.
        let runner = CommandLineRunner(root: GRDBRootCommand.self, commandName: host.commandName, offersOverrides: false,
                                       layerErrors: GRDBErrorPresentation.present)
        return GRDBCLIContext.$host.withValue(host) { GRDBCLIContext.$current.withValue(GRDBCommandState()) { runner.run(arguments) } }
    }

    /// Runs with the process's arguments and exits with the command's code.
    public static func main(host: GRDBMigrationCLIHost) -> Never {
        exit(run(host: host, arguments: Array(CommandLine.arguments.dropFirst())))
    }
}

/// The host of the command being run. A task-local, because ArgumentParser builds
/// commands from arguments alone and cannot be handed a value.
enum GRDBCLIContext {
    @TaskLocal static var host = GRDBMigrationCLIHost(commandName: "migrationkit-grdb")
    /// What the running command is doing, for its error sentences.
    @TaskLocal static var current = GRDBCommandState()
}

/// The database the running command opened, and which steps it is running, so that
/// an SQLite error can name the file and say what the failed step left.
final class GRDBCommandState: @unchecked Sendable {
    /// Migration steps, or rollback steps, each in a transaction of its own.
    enum Steps {
        case migrating, rollingBack

        /// What a failed step leaves, after its transaction rolled back.
        var aftermath: String {
            switch self {
            case .migrating: return "that migration's changes were undone, and the migrations applied before it stay applied"
            case .rollingBack: return "that rollback's changes were undone, and the migrations rolled back before it stay rolled back"
            }
        }
    }

    var path: String?
    /// Nil while no step runs.
    var runningSteps: Steps?
}

/// The root of the GRDB commands.
struct GRDBRootCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: GRDBCLIContext.host.commandName,
            abstract: "Safe migrations for this app's GRDB database.",
            discussion: """
                On Linux, GRDB uses the system SQLite: the database is not encrypted.

                Exit codes: \(CLIExitCode.allCases.map { "\($0.rawValue) \($0.summary)" }.joined(separator: "; ")).
                """,
            subcommands: [
                GRDBMigrateCommand.self, GRDBStatusCommand.self, GRDBRollbackCommand.self,
                GRDBVerifyCommand.self, GRDBSchemaDumpCommand.self,
            ])
    }
}
