import MigrationKit
import MigrationKitCommands
import MigrationKitFiles
import MigrationKitSQLCipher

/// The store `migrationkit`'s commands run on: SQLCipher's writer the host opened, with
/// the SQLCipher runner a command set up, under the command's change locks.
final class SQLCipherStore: DatabaseStore {
    let writer: SQLCipherWriter
    private let configured: SQLCipherMigrationRunner
    /// The change locks the command holds: the database's, once the command took it (a
    /// file the open created is locked only once it exists), goes to the runner with each
    /// call, which then takes it no second time.
    private let locks: CommandLocks
    /// The host's own schema dump (`MigrationCLIHost.schemaSnapshot`), if it has one.
    private let schemaSnapshot: (@Sendable (SQLCipherDatabase) throws -> String)?

    init(writer: SQLCipherWriter, runner: SQLCipherMigrationRunner, locks: CommandLocks,
         schemaSnapshot: (@Sendable (SQLCipherDatabase) throws -> String)?) {
        self.writer = writer
        configured = runner
        self.locks = locks
        self.schemaSnapshot = schemaSnapshot
    }

    /// The runner, handed the change lock the command holds on the file.
    private var runner: SQLCipherMigrationRunner {
        var runner = configured
        runner.heldChangeLock = locks.lock(on: path)
        return runner
    }

    var path: String { writer.path }

    func reading<T>(_ body: (any SQLQuerying) throws -> T) throws -> T {
        try writer.read { try body($0) }
    }

    func changing<T>(_ body: (any BookkeepingExecuting) throws -> T) throws -> T {
        try writer.write { try body($0) }
    }

    func copy(to destination: String) throws {
        try DatabaseBackup.copy(of: writer, to: destination)
    }

    func cipherDescription() throws -> DatabaseCipherDescription {
        DatabaseCipherDescription(try writer.effectiveCipherSettings())
    }

    func discardIfCreated() -> Bool {
        writer.discardCreatedDatabase()
    }

    func close() throws {
        try writer.close()
    }

    // MARK: - The runner's work

    func migrate(upTo target: String?, options: MigrateOptions, from reading: LedgerReading?) throws -> MigrationReport {
        try runner.migrate(in: writer, upTo: target, options: options, from: reading)
    }

    func rollback(_ selection: RollbackSelection, acceptModified: Set<String>) throws -> MigrationReport {
        try runner.rollback(selection, in: writer, acceptModified: acceptModified)
    }

    func baseline(upTo target: String) throws -> [String] {
        try runner.baseline(in: writer, upTo: target)
    }

    func adopt(from tool: OtherTool?, retiringLedger: Bool, dryRun: Bool, acceptingCodeMigrations: Bool) throws -> OtherToolAdoption {
        try runner.adopt(in: writer, from: tool, retiringLedger: retiringLedger, dryRun: dryRun, acceptingCodeMigrations: acceptingCodeMigrations)
    }

    func erase() throws {
        try runner.erase(writer)
    }

    func schemaChange() throws -> SchemaChange? {
        try runner.schemaChange(in: writer)
    }

    func replayedSchema(upTo target: String?) throws -> [SchemaDump.Object] {
        let registry = configured.registry
        let steps = try target.map { Array(registry.steps[...(try registry.index(ofTarget: $0))]) } ?? []
        return try runner.replayedSchema(of: steps, configuredLike: writer)
    }

    func verificationReport() throws -> VerificationReport {
        try runner.verificationReport(in: writer)
    }

    func schemaDump() throws -> String {
        guard let schemaSnapshot else { return try writer.read { try SchemaDump.canonicalSQL(of: $0) } }
        return try writer.read { try schemaSnapshot($0) }
    }
}
