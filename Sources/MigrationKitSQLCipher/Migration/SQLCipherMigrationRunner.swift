import MigrationKit

/// A migration step for SQLCipher databases.
public typealias SQLCipherMigrationStep = MigrationStep<SQLCipherDatabase>

/// Applies, reports on and rolls back migration steps in an encrypted database.
///
/// The SQLCipher counterpart of GRDB's `DatabaseMigrator`, with the same ledger. Every
/// call works on one `SQLCipherWriter`, so the key is derived once per call however
/// many steps run. By default each step runs in its own `BEGIN IMMEDIATE` transaction
/// together with its ledger row, under the 12-step foreign-key rules
/// (`StepTransaction`); a failing step rolls back alone, earlier steps stay, later
/// steps do not run. `MigrateOptions` selects one transaction for everything, or a dry
/// run. What counts as applied, pending, edited or merged is decided by
/// `MigrationAnalysis`, re-read under the write lock so concurrent processes never
/// apply a step twice. The verifier runs after every migrate and rollback.
public struct SQLCipherMigrationRunner: Sendable {
    /// The registered steps, in the order they apply.
    public package(set) var registry: MigrationRegistry<SQLCipherDatabase>
    /// The app's own integrity and post-migration checks, each replacing the
    /// verifier's part when set.
    public var host: MigrationHostIntegration<SQLCipherDatabase>
    /// The checks run after every migrate and rollback, for the parts `host` leaves
    /// to it.
    public var verifier: SQLCipherMigrationVerifier
    /// Apply a pending step even when a step registered after it is already applied.
    /// Off by default: a step slipped into the middle of a history is the classic way a
    /// database reaches a state no step expected.
    public var allowOutOfOrder = false
    /// Receives progress events (for a progress line, or a log).
    public var observer: (@Sendable (MigrationEvent) -> Void)?
    /// Erase the database and migrate from scratch when its history no longer matches
    /// the steps (`schemaChange(in:)`), as GRDB's option does: development databases
    /// only.
    public var eraseDatabaseOnSchemaChange = false
    /// When a step that does not say is checked for foreign keys: `.deferred` (the
    /// 12-step procedure, the default) or `.immediate`.
    public var foreignKeyChecks: ForeignKeyChecks = .deferred
    /// The database's change lock when the caller holds it already (a command holds it
    /// for its whole run): the runner then takes it no second time.
    package var heldChangeLock: DatabaseFileLock?
    /// Whether deferred steps registered from now on have their foreign keys checked
    /// before they commit (`disablingDeferredForeignKeyChecks()`).
    package private(set) var checksDeferredForeignKeys = true

    /// A runner for `steps`, the app's migrations in the order they apply (any
    /// identifiers, as GRDB takes them; `enforceLexicographicOrder` also requires them in
    /// byte-wise order).
    ///
    /// - Throws: `MigrationKitError.duplicateIdentifiers` or `.identifiersOutOfOrder`,
    ///   before any database is touched.
    public init(
        steps: [SQLCipherMigrationStep],
        enforceLexicographicOrder: Bool = false,
        host: MigrationHostIntegration<SQLCipherDatabase> = MigrationHostIntegration(),
        verifier: SQLCipherMigrationVerifier = SQLCipherMigrationVerifier()
    ) throws {
        self.registry = try MigrationRegistry(steps: steps, enforceLexicographicOrder: enforceLexicographicOrder)
        self.host = host
        self.verifier = verifier
    }

    /// A runner with no steps yet, to register them one by one (`registerMigration`), as
    /// GRDB's `DatabaseMigrator()`.
    public init() {
        registry = MigrationRegistry()
        host = MigrationHostIntegration()
        verifier = SQLCipherMigrationVerifier()
    }

    /// A runner for the SQL migration files of `directory`, read and ordered as
    /// `migrationkit` reads them: in `layout` (`NNNN_name.sql` with up and down sections
    /// or `.up.sql`/`.down.sql` pairs, sqlx's, golang-migrate's, goose's, Flyway's or
    /// diesel's), or in the layout its files are written in when `layout` is nil. Swift
    /// steps registered afterwards (`registerMigration`) run after them.
    public init(directory: String, layout: MigrationFolderLayout? = nil, host: MigrationHostIntegration<SQLCipherDatabase> = MigrationHostIntegration(),
                verifier: SQLCipherMigrationVerifier = SQLCipherMigrationVerifier()) throws {
        let files = try SQLMigrationDirectory(path: directory, layout: layout).load()
        try self.init(steps: files.map { SQLCipherMigrationStep(file: $0) }, host: host, verifier: verifier)
    }

    /// Registers a step after those registered so far, as GRDB's `registerMigration`:
    /// any identifier, the order being the registration's; a failure is reported at the
    /// line of this call.
    ///
    /// - Throws: `MigrationKitError.duplicateIdentifiers` when the identifier, or one it
    ///   merges, is registered already.
    public mutating func registerMigration(
        _ identifier: String, foreignKeyChecks: ForeignKeyChecks? = nil, merging: Set<String> = [],
        rollback: (@Sendable (SQLCipherDatabase) throws -> Void)? = nil,
        file: String = #fileID, line: Int = #line,
        migrate: @escaping @Sendable (SQLCipherDatabase) throws -> Void
    ) throws {
        var step = SQLCipherMigrationStep(identifier: identifier, sourceFile: file, sourceLine: line,
                                          merging: merging.sorted(by: MigrationIdentifierOrder.precedes), apply: migrate, rollback: rollback)
        step.foreignKeyChecks = foreignKeyChecks
        step.checksDeferredForeignKeys = checksDeferredForeignKeys
        registry = try registry.registering(step)
    }

    // MARK: - Migrating

    /// Applies every pending step, then verifies.
    @discardableResult
    public func migrate(in writer: SQLCipherWriter, options: MigrateOptions = MigrateOptions()) throws -> MigrationReport {
        try migrate(in: writer, through: registry.steps.count - 1, options: options)
    }

    /// Applies pending steps up to and including `target`, then verifies.
    ///
    /// - Throws: `.unknownMigration` for an unregistered target,
    ///   `.databaseAlreadyMigratedBeyond` when a later step is applied (GRDB traps here).
    @discardableResult
    public func migrate(in writer: SQLCipherWriter, upTo target: String, options: MigrateOptions = MigrateOptions()) throws -> MigrationReport {
        try migrate(in: writer, through: try registry.index(ofTarget: target), options: options)
    }

    /// Applies pending steps up to and including `target` (every step when nil), then
    /// verifies, planning first from `reading` when given: the ledger as the caller read
    /// it on this writer (`readLedger(in:)`), with nothing committed through the writer
    /// since. For a command that decides things from the ledger before it migrates (lint,
    /// a backup) and reads it once for all of them.
    package func migrate(in writer: SQLCipherWriter, upTo target: String?, options: MigrateOptions,
                         from reading: LedgerReading?) throws -> MigrationReport {
        try migrate(in: writer, through: try target.map(registry.index(ofTarget:)) ?? (registry.steps.count - 1), options: options, from: reading)
    }

    private func migrate(in writer: SQLCipherWriter, through lastIndex: Int, options: MigrateOptions,
                         from reading: LedgerReading? = nil) throws -> MigrationReport {
        // An erase is this writer's own commit, which the reading's data_version cannot show.
        var reading = reading
        if eraseDatabaseOnSchemaChange, try schemaChange(in: writer) != nil {
            try erase(writer)
            reading = nil
        }
        let engine = self.engine
        return try changing(writer) { try engine.migrate($0, through: lastIndex, options: options, from: reading) }
    }

    /// The ledger and the writer's `data_version`, in one read: what `migrate(in:upTo:options:from:)`,
    /// `migratePlan(from:upTo:options:)` and `analysis(of:)` go by.
    package func readLedger(in writer: SQLCipherWriter) throws -> LedgerReading {
        let engine = self.engine
        return try writer.read { try engine.readLedger($0) }
    }

    /// The same runner, whose deferred steps registered from now on commit without
    /// their foreign-key check, as GRDB's `disablingDeferredForeignKeyChecks()`: for an
    /// app that checks them itself. Steps registered before keep their check. A run in
    /// which such a step ran leaves foreign keys out of its verification, and does not
    /// list them among the checks that passed.
    public func disablingDeferredForeignKeyChecks() -> SQLCipherMigrationRunner {
        var runner = self
        runner.checksDeferredForeignKeys = false
        return runner
    }

    /// The migration procedure (the core's `MigrationEngine`) over these steps and checks.
    package var engine: MigrationEngine<SQLCipherDatabase> {
        MigrationEngine(registry: registry, host: host, verifier: verifier, allowOutOfOrder: allowOutOfOrder, observer: observer,
                        foreignKeyChecks: foreignKeyChecks)
    }

    /// Runs `body` on the writer's connection, outside any transaction (the engine opens
    /// its own), under the database's change lock, and times it.
    func changing(_ writer: SQLCipherWriter, _ body: (SQLCipherDatabase) throws -> MigrationReport) throws -> MigrationReport {
        let lock = try DatabaseFileLock.exclusive(path: writer.path, timeout: writer.configuration.busyTimeout, heldBy: heldChangeLock)
        defer { lock.release() }
        let clock = ContinuousClock()
        let start = clock.now
        var report = try writer.writeWithoutTransaction(body)
        report.duration = clock.now - start
        return report
    }

    // MARK: - Status

    /// What `migrate(in:options:)` (or `migrate(in:upTo:options:)` with `target`)
    /// would do, or the error it would throw, without changing anything.
    func migratePlan(in writer: SQLCipherWriter, upTo target: String? = nil,
                            options: MigrateOptions = MigrateOptions()) throws -> MigrationPlan<SQLCipherDatabase> {
        let lastIndex = try target.map(registry.index(ofTarget:)) ?? (registry.steps.count - 1)
        return try writer.read { try engine.plan($0, through: lastIndex, options: options) }
    }

    /// Every registered step, applied, pending or modified, plus ledger identifiers no
    /// step has. Reads only: an unmanaged database is left without a ledger.
    public func migrationStatus(in writer: SQLCipherWriter) throws -> MigrationStatus {
        try analysis(in: writer).status
    }

    /// The full comparison of the registry with the database's ledger.
    package func analysis(in writer: SQLCipherWriter) throws -> MigrationAnalysis<SQLCipherDatabase> {
        try writer.read { try engine.analysis(of: $0) }
    }

    /// Every identifier the ledger holds, registered or not, in the order they were
    /// applied: GRDB's `appliedIdentifiers`. (A newer version's steps are among them;
    /// `hasBeenSuperseded` says whether there are any.)
    public func appliedIdentifiers(in writer: SQLCipherWriter) throws -> [String] {
        try analysis(in: writer).snapshot.identifiers
    }

    /// The registered steps that are applied, in registration order: GRDB's
    /// `appliedMigrations`.
    public func appliedMigrations(in writer: SQLCipherWriter) throws -> [String] {
        try migrationStatus(in: writer).applied
    }

    /// The registered steps applied together with every step registered before them,
    /// in registration order: GRDB's `completedMigrations`.
    public func completedMigrations(in writer: SQLCipherWriter) throws -> [String] {
        try migrationStatus(in: writer).completed
    }

    /// Whether every registered step is applied.
    public func hasCompletedMigrations(in writer: SQLCipherWriter) throws -> Bool {
        try migrationStatus(in: writer).isComplete
    }

    /// Whether the ledger holds steps this runner does not know (a newer app migrated it).
    public func hasBeenSuperseded(in writer: SQLCipherWriter) throws -> Bool {
        try migrationStatus(in: writer).isSuperseded
    }

    /// What this build can do with a database a newer build migrated: use it as it is
    /// (every newer step declared compatible with this build), step back from the down
    /// SQL the newer build stored (`rollbackNewerMigrations(in:backupDirectory:)`), or
    /// only read it. `.current` when nothing newer is applied. Reads only.
    public func databaseCompatibility(in writer: SQLCipherWriter) throws -> DatabaseCompatibility {
        try migrationStatus(in: writer).newer
    }

    /// Steps back from every newer step that does not allow this build, newest first,
    /// with the down SQL the newer build stored in the database, in one transaction, then
    /// verifies; first it writes a backup (`<db>.backup-<time>`, beside the database or in
    /// `backupDirectory`, mode 0600, the same key), named in the report. What cannot be
    /// stepped back from (`DatabaseCompatibility.mustRefuse`) throws
    /// `MigrationKitError.databaseSuperseded` with nothing written; nothing newer in the
    /// way is a report with no step and no backup.
    public func rollbackNewerMigrations(in writer: SQLCipherWriter, backupDirectory: String? = nil) throws -> MigrationReport {
        // One hold of the change lock from the judgement to the step back, so that the
        // backup is the database the step back starts from.
        let lock = try DatabaseFileLock.exclusive(path: writer.path, timeout: writer.configuration.busyTimeout, heldBy: heldChangeLock)
        defer { lock.release() }
        var holding = self
        holding.heldChangeLock = lock
        guard case .canStepBack = try holding.databaseCompatibility(in: writer) else { return try holding.rollback(.newer, in: writer, acceptModified: []) }
        let backup = try DatabaseBackup.create(of: writer, in: backupDirectory)
        var report = try holding.rollback(.newer, in: writer, acceptModified: [])
        report.backup = backup
        return report
    }
}

