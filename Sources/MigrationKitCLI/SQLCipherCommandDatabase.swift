import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

/// An open SQLCipher database and the runner to run on it.
final class SQLCipherCommandDatabase: CommandDatabase {
    let writer: SQLCipherWriter
    let migrations: SQLCipherCommandMigrations
    /// The change locks the command holds.
    private let locks: CommandLocks
    /// The host's runner, handed the change lock the command holds on this file, which
    /// it then takes no second time.
    private var runner: SQLCipherMigrationRunner {
        var runner = migrations.runner
        runner.heldChangeLock = locks.lock(on: writer.path)
        return runner
    }

    init(writer: SQLCipherWriter, migrations: SQLCipherCommandMigrations, locks: CommandLocks) {
        self.writer = writer
        self.migrations = migrations
        self.locks = locks
    }

    var path: String { writer.path }

    func readLedger() throws -> LedgerReading { try runner.readLedger(in: writer) }

    func migrate(upTo target: String?, options: MigrateOptions, from ledger: LedgerReading?) throws -> MigrationReport {
        if let ledger { return try runner.migrate(in: writer, upTo: target, options: options, from: ledger) }
        return try target.map { try runner.migrate(in: writer, upTo: $0, options: options) } ?? runner.migrate(in: writer, options: options)
    }

    func rollbackPlan(_ selection: RollbackSelection, acceptModified: Set<String>) throws -> [String] {
        try runner.rollbackPlan(selection, in: writer, acceptModified: acceptModified)
    }

    func rollback(_ selection: RollbackSelection, acceptModified: Set<String>) throws -> MigrationReport {
        try runner.rollback(selection, in: writer, acceptModified: acceptModified)
    }

    func baseline(upTo target: String) throws -> [String] { try runner.baseline(in: writer, upTo: target) }
    func baselinePlan(upTo target: String) throws -> [String] { try runner.baselinePlan(in: writer, upTo: target) }
    func adopt(from tool: OtherTool?, retiringLedger: Bool, dryRun: Bool, acceptingCodeMigrations: Bool) throws -> OtherToolAdoption {
        try runner.adopt(in: writer, from: tool, retiringLedger: retiringLedger, dryRun: dryRun, acceptingCodeMigrations: acceptingCodeMigrations)
    }
    func schemaChange() throws -> SchemaChange? { try runner.schemaChange(in: writer) }

    /// The runner's replay, the one erase-on-schema-change compares with.
    func replayedSchema(upTo target: String?) throws -> [SchemaDump.Object] {
        let steps = try target.map { Array(runner.registry.steps[...(try runner.registry.index(ofTarget: $0))]) } ?? []
        return try runner.replayedSchema(of: steps, configuredLike: writer)
    }
    func erase() throws { try runner.erase(writer) }
    func verificationReport() throws -> VerificationReport { try runner.verificationReport(in: writer) }

    func reading<T>(_ body: (any SQLQuerying) throws -> T) throws -> T {
        try writer.read { try body($0) }
    }

    /// The file's bytes and its `-wal`'s, copied under a read transaction: no commit
    /// lands mid-copy and no checkpoint can restart the `-wal`; commits still in the
    /// `-wal` go along (the copy's first open applies them, as it would for the app); and
    /// the copy opens with the same key and settings at no extra key derivation.
    func copyCommittedState(to path: String) throws {
        try writer.read { _ in
            try BackupFiles.copyBytes(from: writer.path, to: path)
            if FileProbe(path: writer.path + "-wal").size > 0 {
                try BackupFiles.copyBytes(from: writer.path + "-wal", to: path + "-wal")
            }
        }
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

    func cipherDescription() throws -> DatabaseCipherDescription {
        DatabaseCipherDescription(try writer.effectiveCipherSettings())
    }
}

extension DatabaseCipherDescription {
    /// A SQLCipher database's settings as `status` reports them; nil: a plaintext one.
    init(_ settings: EffectiveCipherSettings?) {
        self.init(format: settings?.format ?? .plaintext, summary: settings?.summary, document: settings)
    }
}
