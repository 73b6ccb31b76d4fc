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

    var librarySummary: String {
        let sqlite = GRDBLinkedLibrary.linkedSQLiteVersion
        return (GRDBLinkedLibrary.linkedSQLCipherVersion.map { "SQLCipher \($0) (SQLite \(sqlite))" } ?? "SQLite \(sqlite)") + ", through GRDB"
    }

    var sqliteVersion: String { GRDBLinkedLibrary.linkedSQLiteVersion }
    var cipherVersion: String? { GRDBLinkedLibrary.linkedSQLCipherVersion }
    var linkedLintContext: LintContext { GRDBLinkedLibrary.linkedLintContext }
    /// Whether the GRDB this app links is built on SQLCipher (`PRAGMA cipher_version`).
    var encrypts: Bool { GRDBLinkedLibrary.linkedSQLCipherVersion != nil }
    /// The app's `openWriter` gives the cipher settings; the commands find the format.
    var takesCipherSettings: Bool { false }

    func hostMigrations(requiredIndexes: [RequiredIndexSpec]) -> (any CommandMigrations)? {
        guard var runner = host.runner else { return nil }
        runner.verifier.requiredIndexes += requiredIndexes
        return GRDBCommandMigrations(runner: runner, host: host)
    }

    func migrations(over files: [SQLMigrationFile], requiredIndexes: [RequiredIndexSpec]) throws -> any CommandMigrations {
        var runner = try GRDBMigrationRunner(steps: files.map { MigrationStep<Database>(file: $0) })
        runner.verifier.requiredIndexes += requiredIndexes
        return GRDBCommandMigrations(runner: runner, host: host)
    }

    /// SQLCipher's switch is process-wide: turned on here, it covers the connections
    /// the app's `openWriter` opens, whatever their configuration, unless the host keeps
    /// it off.
    /// `--load-extension` is the `migrationkit` tool's: an app's own binary registers
    /// what only it has (its functions, collations, tokenizers) on the writer its host
    /// opens, with GRDB's `Configuration.prepareDatabase`, as it does for itself.
    func open(_ request: OpenRequest) throws -> any CommandConnection {
        if let library = request.extensions.first {
            throw CLIError(.notAvailableHere, "--load-extension \(library) is not loaded by \(commandName): this app registers its own SQL functions, collations and tokenizers on the database connections its code opens (GRDB's Configuration.prepareDatabase, in the host's openWriter); leave the option out, or load the extension there.")
        }
        return try GRDBCommandConnection(opening: request, host: host)
    }

    func enableMemorySecurity(asked: Bool) -> Bool {
        guard asked, encrypts, host.cipherMemorySecurity else { return false }
        return GRDBLinkedLibrary.memorySecurityEnabled
    }

    var memorySecurity: Bool? {
        guard encrypts else { return nil }
        return (try? DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_memory_security") }).flatMap { $0 }.map { $0 == "1" }
    }

    func present(_ error: any Error, wording: RemedyWording, databasePath: String?) -> ErrorPresentation? {
        GRDBErrorPresentation.present(error, wording: wording, databasePath: databasePath)
    }

    /// The backup is proven as the app opens its database (the host's `openWriter`,
    /// read-only), then put in place as the tool does it.
    func restore(from backup: String, over request: OpenRequest, heldLock: DatabaseFileLock?, beforeReplacing: () throws -> Void) throws -> VerificationCheck {
        var proving = request.forFile(at: backup)
        proving.access = .inspect
        proving.readOnly = true
        let opened = try GRDBCommandConnection(opening: proving, host: host)
        let proof = try opened.writer.read { DatabaseChecks.quickCheck($0) }
        try opened.writer.close()
        if let refusal = DatabaseChecks.backupRefusal(proof) { throw CLIError(.damaged, "\(backup): \(refusal)") }
        try BackupFiles.putInPlace(backup, of: request.path, timeout: request.lockTimeout, heldLock: heldLock,
                                   beforeReplacing: beforeReplacing)
        return proof
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

/// A GRDB runner as the command tree uses it: with MigrationKit's history checks on, as
/// the commands make them on every connection (an app's own launch keeps GRDB's rules);
/// the commands' `--allow-out-of-order` and `--accept-modified` relax them.
struct GRDBCommandMigrations: RunnerMigrations {
    var runner: GRDBMigrationRunner
    let host: GRDBMigrationCLIHost

    init(runner: GRDBMigrationRunner, host: GRDBMigrationCLIHost) {
        var runner = runner
        runner.historyChecks = .strict
        // An app's debug build may erase on schema change at launch; its commands erase
        // only when asked (`--erase-on-schema-change`), after a backup and a confirmation.
        runner.eraseDatabaseOnSchemaChange = false
        // A signal stops the run at the next step's edge at the latest (a statement
        // stops at once, `GRDBConnectionSettings.configuration`'s progress handler).
        runner.registry = runner.registry.mappingSteps { $0.checking { try Interruption.check() } }
        self.runner = runner
        self.host = host
    }

    func database(on connection: any CommandConnection, locks: CommandLocks) -> any CommandDatabase {
        guard let connection = connection as? GRDBCommandConnection else { preconditionFailure("a database another layer than GRDB's opened") }
        return GRDBCommandDatabase(connection: connection, migrations: self, locks: locks)
    }
}
