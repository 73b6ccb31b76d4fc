import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitFiles
import MigrationKitKeys
import MigrationKitSQLCipher

/// The command tree over SQLCipher's connection: what `migrationkit` and an app's
/// binary built on `MigrationCLI` open their databases with, through the host's
/// `openWriter`.
struct SQLCipherCommandLayer: CommandLayer {
    let host: MigrationCLIHost

    var commandName: String { host.commandName }
    /// What only SQLCipher's connection does: a file's encryption, its key and format.
    var ownCommands: [any ParsableCommand.Type] {
        [EncryptCommand.self, DecryptCommand.self, RekeyCommand.self, CipherUpgradeCommand.self, KeyCommand.self]
    }
    var librarySummary: String { SQLCipherLibrary.summary }
    var sqliteVersion: String { SQLCipherLibrary.sqliteVersion }
    var cipherVersion: String? { SQLCipherLibrary.cipherVersionString }
    var linkedLintContext: LintContext { .linkedLibrary }
    var encrypts: Bool { true }
    var takesCipherSettings: Bool { true }

    func hostMigrations(requiredIndexes: [RequiredIndexSpec]) -> (any CommandMigrations)? {
        guard var runner = host.runner else { return nil }
        runner.verifier.requiredIndexes += requiredIndexes
        return SQLCipherCommandMigrations(runner: runner, host: host)
    }

    func migrations(over files: [SQLMigrationFile], requiredIndexes: [RequiredIndexSpec]) throws -> any CommandMigrations {
        SQLCipherCommandMigrations(runner: try SQLCipherMigrationRunner(over: files, requiredIndexes: requiredIndexes), host: host)
    }

    func open(_ request: OpenRequest) throws -> any CommandConnection {
        try host.openWriter(ConnectionSettings(request, host: host))
    }

    func enableMemorySecurity(asked: Bool) -> Bool {
        guard asked, host.cipherMemorySecurity else { return false }
        // Process-wide: also covers the connections a command opens beyond its own
        // (copies, backups, format upgrades).
        SQLCipherLibrary.enableMemorySecurity()
        return true
    }

    var memorySecurity: Bool? { SQLCipherLibrary.memorySecurity }

    func present(_ error: any Error, wording: RemedyWording, databasePath: String?) -> ErrorPresentation? {
        SQLCipherErrorPresentation.present(error, wording: wording)
    }

    func words(for remedy: Remedy) -> String? {
        guard case .storeKeyAgain(let service, let account) = remedy else { return nil }
        return "store the right key with `\(commandName) key store --keychain-service \(shellQuoted(service)) --keychain-account \(shellQuoted(account)) --force`, which replaces them all"
    }

    func restore(from backup: String, over request: OpenRequest, heldLock: DatabaseFileLock?, beforeReplacing: () throws -> Void) throws -> VerificationCheck {
        let settings = ConnectionSettings(request, host: host)
        return try DatabaseBackup.restore(from: backup, to: request.path, key: request.key, configuration: settings.configuration,
                                   heldLock: heldLock, beforeReplacing: beforeReplacing)
    }

    func writeSchemaMigration(_ diff: DiffCommand, to schemaFile: String, reporter: Reporter, in world: CommandWorld) throws {
        try diff.writeMigration(to: schemaFile, reporter: reporter, in: world)
    }
}

/// A SQLCipher runner as the command tree uses it.
struct SQLCipherCommandMigrations: RunnerMigrations {
    var runner: SQLCipherMigrationRunner
    let host: MigrationCLIHost

    func database(on connection: any CommandConnection, locks: CommandLocks) -> any CommandDatabase {
        guard let writer = connection as? SQLCipherWriter else { preconditionFailure("a database another layer than SQLCipher's opened") }
        return SQLCipherCommandDatabase(writer: writer, migrations: self, locks: locks)
    }
}

extension SQLCipherCommandMigrations {
    /// The host's Swift steps, or the SQL files of `--migrations` (`LoadedMigrations.load`).
    static func load(_ options: MigrationsOptions, reporter: Reporter, in world: CommandWorld) throws -> SQLCipherCommandMigrations {
        guard let migrations = try LoadedMigrations.load(options, reporter: reporter, in: world).migrations as? SQLCipherCommandMigrations else {
            preconditionFailure("a command of MigrationCLI ran over another layer")
        }
        return migrations
    }
}

extension SQLCipherMigrationRunner {
    /// The runner over SQL migration files.
    init(over files: [SQLMigrationFile], requiredIndexes: [RequiredIndexSpec] = []) throws {
        try self.init(steps: files.map { SQLCipherMigrationStep(file: $0) }, verifier: SQLCipherMigrationVerifier(requiredIndexes: requiredIndexes))
    }
}

/// The writer is what SQLCipher's layer opens for a command.
extension SQLCipherWriter: CommandConnection {}
