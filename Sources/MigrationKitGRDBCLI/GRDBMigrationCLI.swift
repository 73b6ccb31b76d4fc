import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
#if GRDBSQLCipher
import MigrationKitKeyOptions
import MigrationKitKeys
#endif

/// Runs the migration commands over a GRDB app's writer, for apps that embed them
/// (`grdb-notes` in Examples/GRDBNotes is one). Exit codes, output, `--json` documents
/// and error sentences are the `migrationkit` tool's (they come from the same
/// `MigrationKitCommands`); only the database layer differs.
public enum GRDBMigrationCLI {
    /// Parses `arguments` (without the program name), runs the command, prints results
    /// and errors, and returns the exit code instead of exiting.
    public static func run(host: GRDBMigrationCLIHost, arguments: [String]) -> Int32 {
        let runner = CommandLineRunner(root: GRDBRootCommand.self, commandName: host.commandName, wording: remedies(commandName: host.commandName),
                                       layerErrors: GRDBErrorPresentation.present)
        return GRDBCLIContext.$host.withValue(host) { GRDBCLIContext.$current.withValue(GRDBCommandState()) { runner.run(arguments) } }
    }

    /// How these commands word the libraries' remedies: the migrations folder's, and the
    /// key options' when GRDB is built on SQLCipher. No --allow-out-of-order or
    /// --accept-modified, so a refusal does not suggest them.
    static func remedies(commandName: String) -> RemedyWording {
        RemedyWording { remedy in
            if remedy == .waitLonger { return ErrorPresentation.waitLongerWords }
            // The app opens the database with its own settings (`useKey(_:format:)`).
            if remedy == .giveCipherSettings { return remedy.libraryWords }
            #if GRDBSQLCipher
            if let words = KeySources.words(for: remedy, commandName: commandName) { return words }
            #endif
            return MigrationsOptions.words(for: remedy, newCommand: nil)
        }
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
    /// The database the running command opened, for its error sentences.
    @TaskLocal static var current = GRDBCommandState()
}

/// The database the running command opened, so that an SQLite error can name the file.
final class GRDBCommandState: @unchecked Sendable {
    var path: String?
}

/// The root of the GRDB commands.
struct GRDBRootCommand: ParsableCommand {
    #if GRDBSQLCipher
    static let databaseDescription = """
        GRDB here is built on SQLCipher: the database is encrypted, with the key from \
        exactly one of \(KeySources.advice(DatabaseKeyRole.text, withVariable: false)); \
        otherwise \(KeySource.passwordEnvironmentVariable), else a prompt on a terminal. \
        --plaintext works on an unencrypted database.
        """
    #else
    static let databaseDescription = "On Linux, GRDB uses the system SQLite: the database is not encrypted."
    #endif

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: GRDBCLIContext.host.commandName,
            abstract: "Safe migrations for this app's GRDB database.",
            discussion: """
                \(databaseDescription)

                Exit codes: \(CLIExitCode.allCases.map { "\($0.rawValue) \($0.summary)" }.joined(separator: "; ")).
                """,
            subcommands: [
                GRDBMigrateCommand.self, GRDBStatusCommand.self, GRDBRollbackCommand.self,
                GRDBVerifyCommand.self, GRDBSchemaDumpCommand.self,
            ])
    }
}
