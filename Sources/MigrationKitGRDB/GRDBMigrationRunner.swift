import Foundation
import GRDB
import MigrationKit

/// MigrationKit's safety nets over any GRDB `DatabaseWriter` (`DatabaseQueue`,
/// `DatabasePool`): the same engine as `SQLCipherMigrationRunner` (the core's), with
/// GRDB's `Database` as its connection.
///
/// The ledger is GRDB's `grdb_migrations`, untouched, so an app moves between
/// `DatabaseMigrator` and this runner in either direction (`migrator` gives GRDB's
/// migrator for the same steps). What it adds to GRDB's migrator:
/// - the registry's duplicate checks, before any database is touched;
/// - the history refusals, also before anything runs: a database migrated by a newer
///   version, a half-applied merge, a step edited after it was applied (its checksum, in
///   the `migrationkit_history` side table);
/// - the 12-step foreign-key procedure around every deferred step, with violations the
///   database already had kept and reported rather than blamed on the step;
/// - atomic and dry runs (`MigrateOptions`), and a report of what ran (`MigrationReport`);
/// - rollback through each step's down closure, one transaction per step with its
///   ledger row removed;
/// - verification after every migrate and rollback (`GRDBMigrationVerifier`, or the
///   host's own checks through `MigrationHostIntegration`).
public struct GRDBMigrationRunner: Sendable {
    /// The steps, checked for unique identifiers as they were registered.
    public private(set) var registry: MigrationRegistry<Database>
    /// The checks after every migrate and rollback, unless `host` replaces them.
    public var verifier: GRDBMigrationVerifier
    /// The app's own integrity and post-migration checks, when it has them.
    public var host: MigrationHostIntegration<Database>
    /// Erase the database and migrate from scratch when its history no longer matches
    /// the steps (a step removed, renamed or edited, or a schema that differs from what
    /// the applied steps produce), as GRDB's option does: development databases only.
    public var eraseDatabaseOnSchemaChange: Bool
    /// When a step that does not say is checked for foreign keys: `.deferred` (GRDB's
    /// default, and the 12-step procedure) or `.immediate`.
    public var foreignKeyChecks: ForeignKeyChecks
    /// Apply a pending step even when a step registered after it is already applied.
    public var allowOutOfOrder = false
    /// Told of each step as it starts and once it has committed, with its duration.
    public var observer: (@Sendable (MigrationEvent) -> Void)?
    /// Whether deferred steps' foreign keys are checked before they commit
    /// (`disablingDeferredForeignKeyChecks()`).
    public private(set) var checksDeferredForeignKeys = true

    /// A runner for `steps`, the app's migrations in the order they apply: any
    /// identifiers, as GRDB takes them (`enforceLexicographicOrder` also requires them in
    /// byte-wise order).
    ///
    /// - Throws: `MigrationKitError.duplicateIdentifiers` or
    ///   `.identifiersOutOfOrder(expected:actual:)`: a mistake in the app, found before
    ///   any database is touched.
    public init(
        steps: [MigrationStep<Database>],
        enforceLexicographicOrder: Bool = false,
        verifier: GRDBMigrationVerifier = GRDBMigrationVerifier(),
        host: MigrationHostIntegration<Database> = MigrationHostIntegration(),
        eraseDatabaseOnSchemaChange: Bool = false,
        foreignKeyChecks: ForeignKeyChecks = .deferred
    ) throws {
        registry = try MigrationRegistry(steps: steps, enforceLexicographicOrder: enforceLexicographicOrder)
        self.verifier = verifier
        self.host = host
        self.eraseDatabaseOnSchemaChange = eraseDatabaseOnSchemaChange
        self.foreignKeyChecks = foreignKeyChecks
    }

    /// A runner with no steps yet, to register them one by one (`registerMigration`), as
    /// GRDB's `DatabaseMigrator()`.
    public init() {
        registry = MigrationRegistry()
        verifier = GRDBMigrationVerifier()
        host = MigrationHostIntegration()
        eraseDatabaseOnSchemaChange = false
        foreignKeyChecks = .deferred
    }

    /// Registers a step after those registered so far, as GRDB's `registerMigration`:
    /// any identifier, the order being the registration's; a failure is reported at the
    /// line of this call.
    ///
    /// - Throws: `MigrationKitError.duplicateIdentifiers` when the identifier, or one it
    ///   merges, is registered already (where GRDB stops the process).
    public mutating func registerMigration(
        _ identifier: String, foreignKeyChecks: ForeignKeyChecks? = nil, merging: Set<String> = [],
        rollback: (@Sendable (Database) throws -> Void)? = nil,
        file: String = #fileID, line: Int = #line,
        migrate: @escaping @Sendable (Database) throws -> Void
    ) throws {
        var step = MigrationStep<Database>(identifier: identifier, sourceFile: file, sourceLine: line,
                                           merging: merging.sorted(by: MigrationIdentifierOrder.precedes), apply: migrate, rollback: rollback)
        step.foreignKeyChecks = foreignKeyChecks
        registry = try registry.registering(step)
    }

    /// The same runner, with deferred steps committed without their foreign-key check,
    /// as GRDB's `disablingDeferredForeignKeyChecks()`: for an app that checks them
    /// itself. The verification after the run still checks foreign keys unless the host
    /// replaces it.
    public func disablingDeferredForeignKeyChecks() -> GRDBMigrationRunner {
        var runner = self
        runner.checksDeferredForeignKeys = false
        return runner
    }

    /// The migration procedure (the core's `MigrationEngine`) over these steps and checks.
    var engine: MigrationEngine<Database> {
        MigrationEngine(registry: registry, host: host, verifier: verifier, allowOutOfOrder: allowOutOfOrder, observer: observer,
                        foreignKeyChecks: foreignKeyChecks, checksDeferredForeignKeys: checksDeferredForeignKeys)
    }

    /// GRDB's migrator for these steps, for an app that hands it to GRDB's own APIs: the
    /// same ledger, each step's history row beside it. Without MigrationKit's refusals,
    /// foreign-key baseline and verification: `migrate(in:)` has them.
    public var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.eraseDatabaseOnSchemaChange = eraseDatabaseOnSchemaChange
        if !checksDeferredForeignKeys { migrator = migrator.disablingDeferredForeignKeyChecks() }
        for step in registry.steps {
            let merging = Set(step.merging)
            let checks: DatabaseMigrator.ForeignKeyChecks = engine.foreignKeyChecks(of: step) == .immediate ? .immediate : .deferred
            migrator.registerMigration(step.identifier, foreignKeyChecks: checks, merging: merging) { db, appliedMerged in
                // A squash whose replaced steps are all applied only rewrites the ledger.
                if !merging.isEmpty, appliedMerged == merging {
                    try MigrationBookkeeping.recordHistory(step.identifier, checksum: step.checksum, duration: .zero, in: db)
                    return
                }
                let start = ContinuousClock.now
                try engine.run(step, phase: .apply, in: db)
                try MigrationBookkeeping.recordHistory(step.identifier, checksum: step.checksum, duration: ContinuousClock.now - start, in: db)
            }
        }
        return migrator
    }

    // MARK: - Migrating

    /// Applies every pending step, then verifies.
    @discardableResult
    public func migrate(in writer: any DatabaseWriter, options: MigrateOptions = MigrateOptions()) throws -> MigrationReport {
        try migrate(in: writer, through: registry.steps.count - 1, options: options)
    }

    /// Applies the pending steps up to and including `target`, then verifies.
    ///
    /// - Throws: `MigrationKitError` before anything runs when `target` is unknown, the
    ///   database is migrated beyond it, or its history forbids migrating;
    ///   `MigrationStepError` when a step fails (that step is rolled back; the steps
    ///   before it stay).
    @discardableResult
    public func migrate(in writer: any DatabaseWriter, upTo target: String, options: MigrateOptions = MigrateOptions()) throws -> MigrationReport {
        try migrate(in: writer, through: try registry.index(ofTarget: target), options: options)
    }

    private func migrate(in writer: any DatabaseWriter, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        guard !registry.steps.isEmpty else { return MigrationReport() }
        if eraseDatabaseOnSchemaChange, try schemaChange(in: writer) != nil { try erase(writer) }
        return try changing(writer) { try engine.migrate($0, through: lastIndex, options: options) }
    }

    /// Runs `body` on the writer's connection, outside any transaction (the engine opens
    /// its own), behind GRDB's barrier (a pool's readers see the database before or
    /// after, never half way), and times it.
    private func changing(_ writer: any DatabaseWriter, _ body: (Database) throws -> MigrationReport) throws -> MigrationReport {
        let clock = ContinuousClock()
        let start = clock.now
        var report = try writer.barrierWriteWithoutTransaction(body)
        report.duration = clock.now - start
        return report
    }

    /// What `migrate(in:options:)` (or `migrate(in:upTo:options:)` with `target`) would
    /// do, or the error it would throw, without changing anything.
    public func migratePlan(in reader: any DatabaseReader, upTo target: String? = nil,
                            options: MigrateOptions = MigrateOptions()) throws -> MigrationPlan<Database> {
        let lastIndex = try target.map(registry.index(ofTarget:)) ?? (registry.steps.count - 1)
        return try reader.read { try engine.plan($0, through: lastIndex, options: options) }
    }

    // MARK: - Reading the state

    /// The registry compared with the database's ledger and history.
    public func analysis(in reader: any DatabaseReader) throws -> MigrationAnalysis<Database> {
        try reader.read { try engine.analysis(of: $0) }
    }

    /// Every step's state: applied, pending, modified, out of order, partly merged; and
    /// unknown ledger identifiers.
    public func migrationStatus(in reader: any DatabaseReader) throws -> MigrationStatus {
        try analysis(in: reader).status
    }

    /// Every identifier the ledger holds, registered or not, in the order they were
    /// applied: GRDB's `appliedIdentifiers`. (A newer version's steps are among them;
    /// `hasBeenSuperseded` says whether there are any.)
    public func appliedIdentifiers(in reader: any DatabaseReader) throws -> [String] {
        try analysis(in: reader).snapshot.identifiers
    }

    /// The registered steps that are applied, in registration order: GRDB's
    /// `appliedMigrations`.
    public func appliedMigrations(in reader: any DatabaseReader) throws -> [String] {
        try migrationStatus(in: reader).applied
    }

    /// The registered steps applied together with every step registered before them,
    /// in registration order: GRDB's `completedMigrations`.
    public func completedMigrations(in reader: any DatabaseReader) throws -> [String] {
        try migrationStatus(in: reader).completed
    }

    /// Whether every registered step is applied.
    public func hasCompletedMigrations(in reader: any DatabaseReader) throws -> Bool {
        try migrationStatus(in: reader).isComplete
    }

    /// Whether the ledger holds steps this runner does not know (a newer app migrated it).
    public func hasBeenSuperseded(in reader: any DatabaseReader) throws -> Bool {
        try migrationStatus(in: reader).isSuperseded
    }

    // MARK: - Rolling back

    /// Rolls back the latest applied step (refused if edited since it was applied,
    /// unless `acceptModified` names it).
    @discardableResult
    public func rollbackLastMigration(in writer: any DatabaseWriter, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollbackMigrations(in: writer, steps: 1, acceptModified: acceptModified)
    }

    /// Rolls back the latest `steps` applied steps, latest first, each in its own
    /// transaction with its ledger and history rows, then verifies. Refuses before
    /// changing anything when one of them has no down closure, or was edited since it
    /// was applied and `acceptModified` does not name it.
    @discardableResult
    public func rollbackMigrations(in writer: any DatabaseWriter, steps count: Int, acceptModified: Set<String> = []) throws -> MigrationReport {
        try changing(writer) { try engine.rollback(.latest(count), in: $0, acceptModified: acceptModified) }
    }

    /// Rolls back every applied step registered after `target`, latest first, leaving
    /// the database as `migrate(in:upTo: target)` would have.
    @discardableResult
    public func rollbackMigrations(in writer: any DatabaseWriter, to target: String, acceptModified: Set<String> = []) throws -> MigrationReport {
        try changing(writer) { try engine.rollback(.after(target), in: $0, acceptModified: acceptModified) }
    }

    /// The identifiers `rollbackMigrations(in:steps:)` would roll back, in order, or the
    /// error it would throw, without changing anything: for checks made before a
    /// backup is taken.
    public func rollbackPlan(in reader: any DatabaseReader, steps count: Int, acceptModified: Set<String> = []) throws -> [String] {
        try reader.read { try engine.analysis(of: $0).rollbackPlan(.latest(count), acceptModified: acceptModified) }.map(\.identifier)
    }

    /// The identifiers `rollbackMigrations(in:to:)` would roll back, or its error.
    public func rollbackPlan(in reader: any DatabaseReader, to target: String, acceptModified: Set<String> = []) throws -> [String] {
        try reader.read { try engine.analysis(of: $0).rollbackPlan(.after(target), acceptModified: acceptModified) }.map(\.identifier)
    }

    // MARK: - History tools

    /// Records every step up to and including `target` as applied without running it,
    /// for a database whose schema predates MigrationKit (Flyway's `baseline`). Steps
    /// already recorded are left as they are; returns the identifiers newly recorded.
    @discardableResult
    public func baseline(in writer: any DatabaseWriter, upTo target: String) throws -> [String] {
        let targetIndex = try registry.index(ofTarget: target)
        return try writer.barrierWriteWithoutTransaction { try engine.baseline($0, through: targetIndex) }
    }

    /// Whether the database's history no longer matches the registered steps, and why
    /// (see `SchemaChange`); the applied steps are replayed into an in-memory database
    /// with the writer's configuration (its key, for a GRDB built on SQLCipher), as
    /// GRDB's own check does. Nil when the history matches.
    public func schemaChange(in reader: any DatabaseReader) throws -> SchemaChange? {
        try reader.read { db in
            try engine.schemaChange(db) { steps in
                var replay = try GRDBMigrationRunner(steps: steps, host: host)
                replay.allowOutOfOrder = true
                // The steps' own effects only: no verification of the scratch copy.
                replay.host = MigrationHostIntegration(verifyIntegrity: { _ in }, verifyPostMigration: { _ in })
                var configuration = reader.configuration
                configuration.readonly = false
                let scratch = try DatabaseQueue(configuration: configuration)
                try replay.migrate(in: scratch)
                return try scratch.read { try SchemaDump.canonicalSQL(of: $0) }
            }
        }
    }

    /// Drops every table, view, index and trigger, the ledger and MigrationKit's history,
    /// and resets `user_version`, in one transaction.
    public func erase(_ writer: any DatabaseWriter) throws {
        try writer.barrierWriteWithoutTransaction { try engine.erase($0) }
    }

    // MARK: - Verifying

    /// Verifies the database as after a migration: the host's closures where given, the
    /// verifier otherwise. Throws the first problem (an app's own check's error wrapped
    /// in a `HostVerificationError`).
    public func runPostMigrationChecks(in reader: any DatabaseReader) throws {
        try reader.read { _ = try engine.runVerification(in: $0, foreignKeys: .strict) }
    }

    /// Every check, passed or failed, for reports: the host's where it gives them (one
    /// check per part), the verifier's otherwise.
    public func verificationReport(in reader: any DatabaseReader) throws -> VerificationReport {
        try reader.read { engine.verificationReport(in: $0) }
    }
}

extension GRDBMigrationRunner {
    /// What the verification after a migrate checks, in words, as the SQLCipher runner
    /// reports it (`MigrationReport.verification`): the host's checks where it gives
    /// them, the verifier's otherwise.
    public var verificationSummary: [String] {
        let integrity = host.verifyIntegrity == nil ? ["quick_check"] : ["the app's integrity checks"]
        guard host.verifyPostMigration == nil else { return integrity + ["the app's post-migration checks"] }
        let indexes = verifier.requiredIndexes.count
        return integrity + ["foreign keys"] + (indexes == 0 ? [] : ["\(indexes) required index" + (indexes == 1 ? "" : "es")])
    }

    /// How long each applied step took, as recorded when it ran (0 for a step another
    /// tool applied), by identifier.
    public func recordedDurations(in reader: any DatabaseReader) throws -> [String: Duration] {
        try reader.read { db in try GRDBMigrationHistory.durations(in: db) }
    }
}

extension GRDBMigrationRunner: MigrationRunnerConfiguration {}
