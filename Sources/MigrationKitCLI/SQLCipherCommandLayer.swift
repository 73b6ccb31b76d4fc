import Foundation
import MigrationKit
import MigrationKitCommandTree
import MigrationKitCommands
import MigrationKitSQLCipher

/// The command tree over SQLCipher's connection: what `migrationkit` and an app's
/// binary built on `MigrationCLI` open their databases with, through the host's
/// `openWriter`.
struct SQLCipherCommandLayer: CommandLayer {
    let host: MigrationCLIHost

    var commandName: String { host.commandName }
    var librarySummary: String { SQLCipherLibrary.summary }
    var sqliteVersion: String { SQLCipherLibrary.sqliteVersion }
    var cipherVersion: String? { SQLCipherLibrary.cipherVersionString }
    var linkedLintContext: LintContext { .linkedLibrary }
    var encrypts: Bool { true }

    func hostMigrations(requiredIndexes: [RequiredIndexSpec]) -> (any CommandMigrations)? {
        guard var runner = host.runner else { return nil }
        runner.verifier.requiredIndexes += requiredIndexes
        return SQLCipherCommandMigrations(runner: runner, host: host)
    }

    func migrations(over files: [SQLMigrationFile], requiredIndexes: [RequiredIndexSpec]) throws -> any CommandMigrations {
        SQLCipherCommandMigrations(runner: try SQLCipherSupport.runner(over: files, requiredIndexes: requiredIndexes), host: host)
    }

    func enableMemorySecurity(asked: Bool) -> Bool {
        guard asked, host.cipherMemorySecurity else { return false }
        // Process-wide: also covers the connections a command opens beyond its own
        // (copies, backups, format upgrades).
        SQLCipherLibrary.enableMemorySecurity()
        return true
    }

    var memorySecurity: Bool? { SQLCipherLibrary.memorySecurity }

    func present(_ error: any Error, wording: RemedyWording) -> ErrorPresentation? {
        SQLCipherErrorPresentation.present(error, wording: wording)
    }

    func words(for remedy: Remedy) -> String? { nil }

    func restore(from backup: String, over request: DatabaseRequest, beforeReplacing: () throws -> Void) throws {
        let settings = ConnectionSettings(request)
        try DatabaseBackup.restore(from: backup, to: request.path, key: request.key, configuration: settings.configuration,
                                   beforeReplacing: beforeReplacing)
    }

    func writeSchemaMigration(_ diff: DiffCommand, to schemaFile: String, reporter: Reporter) throws {
        try diff.writeMigration(to: schemaFile, reporter: reporter)
    }
}

/// A SQLCipher runner as the command tree uses it.
struct SQLCipherCommandMigrations: CommandMigrations {
    var runner: SQLCipherMigrationRunner
    let host: MigrationCLIHost

    var identifiers: [String] { runner.registry.identifiers }

    var allowOutOfOrder: Bool {
        get { runner.allowOutOfOrder }
        set { runner.allowOutOfOrder = newValue }
    }

    var observer: (@Sendable (MigrationEvent) -> Void)? {
        get { runner.observer }
        set { runner.observer = newValue }
    }

    var requiredIndexes: [RequiredIndexSpec] {
        get { runner.verifier.requiredIndexes }
        set { runner.verifier.requiredIndexes = newValue }
    }

    func isReversible(_ identifier: String) -> Bool {
        runner.registry.steps.first { $0.identifier == identifier }?.isReversible ?? false
    }

    func index(ofTarget target: String) throws -> Int {
        try runner.registry.index(ofTarget: target)
    }

    var statusOfNewDatabase: MigrationStatus {
        MigrationAnalysis(registry: runner.registry, snapshot: LedgerSnapshot(identifiers: [])).status
    }

    func open(_ request: DatabaseRequest) throws -> any CommandDatabase {
        SQLCipherCommandDatabase(writer: try host.openWriter(ConnectionSettings(request)), migrations: self)
    }
}

/// An open SQLCipher database and the runner to run on it.
final class SQLCipherCommandDatabase: CommandDatabase {
    let writer: SQLCipherWriter
    let migrations: SQLCipherCommandMigrations
    private var runner: SQLCipherMigrationRunner { migrations.runner }

    init(writer: SQLCipherWriter, migrations: SQLCipherCommandMigrations) {
        self.writer = writer
        self.migrations = migrations
    }

    var path: String { writer.path }

    func running(_ migrations: any CommandMigrations) -> any CommandDatabase {
        guard let own = migrations as? SQLCipherCommandMigrations else {
            preconditionFailure("migrations from another layer than SQLCipher's")
        }
        return SQLCipherCommandDatabase(writer: writer, migrations: own)
    }

    func migrationStatus() throws -> MigrationStatus { try runner.migrationStatus(in: writer) }

    func migrateChangesAnything(upTo target: String?, options: MigrateOptions) throws -> Bool {
        try runner.migratePlan(in: writer, upTo: target, options: options).changesAnything
    }

    func migrate(upTo target: String?, options: MigrateOptions) throws -> MigrationReport {
        try target.map { try runner.migrate(in: writer, upTo: $0, options: options) } ?? runner.migrate(in: writer, options: options)
    }

    func rollbackIsEmpty(_ scope: RollbackScope, acceptModified: Set<String>) throws -> Bool {
        switch scope {
        case .to(let target): return try runner.rollbackPlan(in: writer, to: target, acceptModified: acceptModified).isEmpty
        case .latest(let count): return try runner.rollbackPlan(in: writer, steps: count, acceptModified: acceptModified).isEmpty
        }
    }

    func rollback(_ scope: RollbackScope, acceptModified: Set<String>) throws -> MigrationReport {
        switch scope {
        case .to(let target): return try runner.rollbackMigrations(in: writer, to: target, acceptModified: acceptModified)
        case .latest(let count): return try runner.rollbackMigrations(in: writer, steps: count, acceptModified: acceptModified)
        }
    }

    func baseline(upTo target: String) throws -> [String] { try runner.baseline(in: writer, upTo: target) }
    func schemaChange() throws -> SchemaChange? { try runner.schemaChange(in: writer) }
    func erase() throws { try runner.erase(writer) }
    func verificationReport() throws -> VerificationReport { try runner.verificationReport(in: writer) }

    func reading<T>(_ body: (any SQLQuerying) throws -> T) throws -> T {
        try writer.read { try body($0) }
    }

    /// The file's own bytes, copied under a read transaction: no commit lands mid-copy,
    /// and the copy opens with the same key and settings at no extra key derivation.
    func copyCommittedState(to path: String) throws {
        try writer.read { _ in try BackupFiles.copyBytes(from: writer.path, to: path) }
    }

    func schemaDump() throws -> String {
        let snapshot = migrations.host.schemaSnapshot
        return try writer.read { db in try snapshot?(db) ?? SchemaDump.canonicalSQL(of: db) }
    }

    func lintContext(for files: [SQLMigrationFile]) throws -> LintContext {
        try writer.read { try LintContext.reading($0, for: files) }
    }

    func backup(into directory: String?, keep: Int, sparing: Set<String>) throws -> String {
        try DatabaseBackup.create(of: writer, in: directory, keep: keep, sparing: sparing)
    }

    func close() throws { try writer.close() }

    @discardableResult
    func discardCreatedDatabase() -> Bool { writer.discardCreatedDatabase() }

    func cipherDescription() throws -> DatabaseCipherDescription {
        let settings = try writer.effectiveCipherSettings()
        return DatabaseCipherDescription(format: settings?.format ?? .plaintext, summary: settings?.summary, document: settings)
    }
}
