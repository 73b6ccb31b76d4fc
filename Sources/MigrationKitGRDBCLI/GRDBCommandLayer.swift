import ArgumentParser
import Foundation
import GRDB
import MigrationKit
import MigrationKitCommands
import MigrationKitFiles
import MigrationKitGRDB
import MigrationKitSecrets

/// The command tree over a GRDB app's writer: the commands open what the host's
/// `openWriter` returns, and run the app's `GRDBMigrationRunner` (or one over the SQL
/// files of `--migrations`) on it.
struct GRDBCommandLayer: CommandLayer {
    let host: GRDBMigrationCLIHost

    var commandName: String { host.commandName }
    /// None: a GRDB app's commands are the tree's (its key and format are the app's code's).
    var ownCommands: [any ParsableCommand.Type] { [] }

    /// SQLite or SQLCipher (`PRAGMA cipher_version`) under GRDB; the app's `openWriter`
    /// gives the cipher settings, and the commands find the format.
    var library: DatabaseLibrary {
        let sqlite = GRDBLinkedLibrary.linkedSQLiteVersion
        let cipher = GRDBLinkedLibrary.linkedSQLCipherVersion
        return DatabaseLibrary(summary: (cipher.map { "SQLCipher \($0) (SQLite \(sqlite))" } ?? "SQLite \(sqlite)") + ", through GRDB",
                               sqliteVersion: sqlite, cipherVersion: cipher, lintContext: GRDBLinkedLibrary.linkedLintContext,
                               encrypts: cipher != nil, takesCipherSettings: false)
    }

    func hostMigrations(requiredIndexes: [RequiredIndexSpec]) -> CommandMigrations? {
        guard var runner = host.runner else { return nil }
        runner.verifier.requiredIndexes += requiredIndexes
        return migrations(runner)
    }

    func migrations(over files: [SQLMigrationFile], requiredIndexes: [RequiredIndexSpec]) throws -> CommandMigrations {
        var runner = try GRDBMigrationRunner(steps: files.map { MigrationStep<Database>(file: $0) })
        runner.verifier.requiredIndexes += requiredIndexes
        return migrations(runner)
    }

    /// `runner` on the writers the host's `openWriter` opens, as the command tree runs it:
    /// with MigrationKit's history checks on, as the commands make them on every
    /// connection (an app's own launch keeps GRDB's rules; the commands'
    /// `--allow-out-of-order` and `--accept-modified` relax them); erasing only when asked
    /// (`--erase-on-schema-change`, after a backup and a confirmation), where an app's
    /// debug build may erase at launch; stopping at the next step's edge at the latest on
    /// a signal (a statement stops at once, `GRDBConnectionSettings.configuration`'s
    /// progress handler).
    private func migrations(_ runner: GRDBMigrationRunner) -> CommandMigrations {
        var runner = runner
        runner.historyChecks = .strict
        runner.eraseDatabaseOnSchemaChange = false
        runner.registry = runner.registry.mappingSteps { $0.checking { try Interruption.check() } }
        let host = self.host
        return CommandMigrations(runner: runner) { request, runner, locks in try GRDBStore(opening: request, host: host, runner: runner, locks: locks) }
    }

    func enableMemorySecurity(asked: Bool) -> Bool {
        guard asked, library.encrypts, host.cipherMemorySecurity else { return false }
        return GRDBLinkedLibrary.memorySecurityEnabled
    }

    var memorySecurity: Bool? {
        guard library.encrypts else { return nil }
        return (try? DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_memory_security") }).flatMap { $0 }.map { $0 == "1" }
    }

    func present(_ error: any Error, wording: RemedyWording, databasePath: String?) -> ErrorPresentation? {
        GRDBErrorPresentation.present(error, wording: wording, databasePath: databasePath)
    }

    /// The proof runs raw SQL on scratch copies through SQLCipher's connection; the
    /// `migrationkit` tool does it on the same files (their schema is all it reads).
    func writeSchemaMigration(_ diff: DiffCommand, to schemaFile: String, reporter: Reporter, in world: CommandWorld) throws {
        throw CLIError(.notAvailableHere, "diff --to writes a migration with the migrationkit tool, which opens this app's database and migration files as they are: run `migrationkit diff --to \(schemaFile)` with the same --db-path or --migrations (drift, diff without --to, works here).")
    }

    /// The app opens the database with its own cipher settings (`useKey(_:format:)` and
    /// its `openWriter`), which no option of its commands gives: the sentence says where
    /// they are set, in words for whoever runs the command, not the library's type.
    func words(for remedy: Remedy) -> String? {
        if case .giveCipherSettings(let settings) = remedy {
            let named = settings.isEmpty ? "" : " (" + settings.map(\.description).joined(separator: ", ") + ")"
            return "if the database was made with other cipher settings\(named), set them in the app's code that opens it "
                + "(no option of \(commandName) gives them)"
        }
        return nil
    }
}
