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
    var library: DatabaseLibrary {
        DatabaseLibrary(summary: SQLCipherLibrary.summary, sqliteVersion: SQLCipherLibrary.sqliteVersion,
                        cipherVersion: SQLCipherLibrary.cipherVersionString, lintContext: .linkedLibrary, encrypts: true,
                        takesCipherSettings: true)
    }

    func hostMigrations(requiredIndexes: [RequiredIndexSpec]) -> CommandMigrations? {
        guard var runner = host.runner else { return nil }
        runner.verifier.requiredIndexes += requiredIndexes
        return migrations(runner)
    }

    func migrations(over files: [SQLMigrationFile], requiredIndexes: [RequiredIndexSpec]) throws -> CommandMigrations {
        migrations(try SQLCipherMigrationRunner(over: files, requiredIndexes: requiredIndexes))
    }

    /// `runner` on the writers the host opens, its schema dumped as the host dumps it.
    private func migrations(_ runner: SQLCipherMigrationRunner) -> CommandMigrations {
        let host = self.host
        return CommandMigrations(runner: runner) { request, runner, locks in
            SQLCipherStore(writer: try host.openWriter(ConnectionSettings(request, host: host)), runner: runner, locks: locks,
                           schemaSnapshot: host.schemaSnapshot)
        }
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

    func writeSchemaMigration(_ diff: DiffCommand, to schemaFile: String, reporter: Reporter, in world: CommandWorld) throws {
        try diff.writeMigration(to: schemaFile, reporter: reporter, in: world)
    }
}

extension SQLCipherMigrationRunner {
    /// The runner over SQL migration files.
    init(over files: [SQLMigrationFile], requiredIndexes: [RequiredIndexSpec] = []) throws {
        try self.init(steps: files.map { SQLCipherMigrationStep(file: $0) }, verifier: SQLCipherMigrationVerifier(requiredIndexes: requiredIndexes))
    }
}

extension DatabaseCipherDescription {
    /// A SQLCipher database's settings as `status` reports them; nil: a plaintext one.
    init(_ settings: EffectiveCipherSettings?) {
        self.init(format: settings?.format ?? .plaintext, summary: settings?.summary, document: settings)
    }
}

/// SQLCipher's runner, as the command tree sets it up.
extension SQLCipherMigrationRunner: MigrationRunning {}
