import Foundation
import GRDB
import MigrationKit

/// MigrationKit's safety nets over any GRDB `DatabaseWriter` (`DatabaseQueue`,
/// `DatabasePool`), built on GRDB's own `DatabaseMigrator`.
///
/// Each step is one `registerMigration` (merged steps through
/// `registerMigration(_:merging:)`), so the ledger is GRDB's `grdb_migrations`, untouched:
/// an app can move between `DatabaseMigrator` and this runner in either direction. What
/// it adds on top:
/// - the registry's duplicate and order checks, before any database is touched;
/// - the history refusals, also before anything runs: a database migrated by a newer
///   version, a half-applied merge, a step edited after it was applied (its checksum, in
///   the `migrationkit_history` side table the SQLCipher runner keeps too);
/// - rollback through each step's down closure, one transaction per step with its
///   ledger row removed (GRDB's migrator has none);
/// - verification after every migrate and rollback (`GRDBMigrationVerifier`, or the
///   host's own checks through `MigrationHostIntegration`).
public struct GRDBMigrationRunner: Sendable {
    /// The steps, checked for unique identifiers and order when the runner was made.
    public let registry: MigrationRegistry<Database>
    /// The checks after every migrate and rollback, unless `host` replaces them.
    public var verifier: GRDBMigrationVerifier
    /// The app's own integrity and post-migration checks, when it has them.
    public var host: MigrationHostIntegration<Database>
    /// Passed to GRDB: erase and migrate from scratch when the schema no longer matches
    /// what the steps produce (development databases only).
    public var eraseDatabaseOnSchemaChange: Bool
    /// Passed to GRDB for every step: `.deferred` (GRDB's default: checked once before
    /// each step commits) or `.immediate`.
    public var foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks
    /// Told of each rollback step as it starts and once it has committed, with its
    /// duration, as the SQLCipher runner tells its observer. (GRDB's migrator runs the
    /// migrate steps; their durations are in `recordedDurations(in:)`.)
    public var observer: (@Sendable (MigrationEvent) -> Void)?

    /// A runner for `steps`, the app's migrations in order.
    ///
    /// - Throws: `MigrationKitError.duplicateIdentifiers` or
    ///   `.identifiersOutOfOrder(expected:actual:)`: a mistake in the app, found before
    ///   any database is touched.
    public init(
        steps: [MigrationStep<Database>],
        verifier: GRDBMigrationVerifier = GRDBMigrationVerifier(),
        host: MigrationHostIntegration<Database> = MigrationHostIntegration(),
        eraseDatabaseOnSchemaChange: Bool = false,
        foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks = .deferred
    ) throws {
        registry = try MigrationRegistry(steps: steps)
        self.verifier = verifier
        self.host = host
        self.eraseDatabaseOnSchemaChange = eraseDatabaseOnSchemaChange
        self.foreignKeyChecks = foreignKeyChecks
    }

    /// GRDB's migrator for these steps: what `migrate` runs, for an app that wants to
    /// hand it to GRDB's own APIs. A step whose code fails throws `MigrationStepError`, as
    /// under the SQLCipher runner.
    public var migrator: DatabaseMigrator { migrator(noting: nil) }

    /// - Parameter begun: told of each step as GRDB starts it, so that what GRDB itself
    ///   raises later in that step's transaction (its deferred foreign-key check) is
    ///   blamed on the step.
    private func migrator(noting begun: StepInProgress?) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.eraseDatabaseOnSchemaChange = eraseDatabaseOnSchemaChange
        for step in registry.steps {
            let merging = Set(step.merging)
            migrator.registerMigration(step.identifier, foreignKeyChecks: foreignKeyChecks, merging: merging) { db, appliedMerged in
                begun?.record(step)
                // A squash whose replaced steps are all applied only rewrites the ledger,
                // which GRDB does; the history refusals have ruled out a partial one.
                if !merging.isEmpty, appliedMerged == merging {
                    try MigrationBookkeeping.recordHistory(step.identifier, checksum: step.checksum, duration: .zero, in: db)
                    return
                }
                let start = ContinuousClock.now
                do {
                    try step.apply(db)
                } catch {
                    throw Self.failure(of: step, .apply, error)
                }
                try MigrationBookkeeping.recordHistory(step.identifier, checksum: step.checksum, duration: ContinuousClock.now - start, in: db)
            }
        }
        return migrator
    }

    /// What a step's failure is reported as, by both runners: the step, the phase, and
    /// for a migration file the file and line of the failing statement.
    static func failure(of step: MigrationStep<Database>, _ phase: MigrationStepError.Phase, _ error: any Error) -> MigrationStepError {
        switch error {
        case let error as MigrationStepError:
            return error
        case let error as GRDBFileStatementError:
            return MigrationStepError(identifier: step.identifier, phase: phase, sourceFile: error.sourcePath, line: error.sourceLine,
                                      underlying: error.underlying)
        default:
            return MigrationStepError(identifier: step.identifier, phase: phase, sourceFile: step.sourceFile, line: nil, underlying: error)
        }
    }

    /// The step GRDB began last in one `migrate`.
    private final class StepInProgress: @unchecked Sendable {
        private let lock = NSLock()
        private var current: MigrationStep<Database>?

        func record(_ step: MigrationStep<Database>) { lock.withLock { current = step } }
        var step: MigrationStep<Database>? { lock.withLock { current } }
    }

    // MARK: - Migrating

    /// Applies every pending step, then verifies.
    public func migrate(in writer: any DatabaseWriter) throws {
        guard let last = registry.steps.last else { return }
        try migrate(in: writer, upTo: last.identifier)
    }

    /// Applies the pending steps up to and including `target`, then verifies.
    ///
    /// - Throws: `MigrationKitError` before anything runs when `target` is unknown, the
    ///   database is migrated beyond it, or its history forbids migrating;
    ///   `MigrationStepError` when a step fails (that step is rolled back; the steps
    ///   before it stay).
    public func migrate(in writer: any DatabaseWriter, upTo target: String) throws {
        let index = try registry.index(ofTarget: target)
        // GRDB would stop the process (a precondition) on a database migrated beyond
        // the target: refuse with an error first, like every other refusal. With
        // eraseDatabaseOnSchemaChange the history may be erased instead of refused, but
        // a target behind the applied steps is refused all the same: whether GRDB
        // erases is decided only inside its migrate, after the precondition.
        if eraseDatabaseOnSchemaChange {
            _ = try analysis(in: writer).pendingSteps(through: index, allowOutOfOrder: true)
        } else {
            _ = try analysis(in: writer).migratePlan(through: index, allowOutOfOrder: false)
        }
        let begun = StepInProgress()
        do {
            try migrator(noting: begun).migrate(writer, upTo: target)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            // GRDB's check before the step commits: the step left rows without a parent.
            guard let step = begun.step else { throw error }
            throw Self.failure(of: step, .apply, error)
        }
        // Steps applied by plain GRDB before have no checksum on record yet: adopt them.
        try writer.write { db in
            let adopt = MigrationAnalysis(registry: registry, snapshot: try MigrationBookkeeping.snapshot(in: db)).checksumsToAdopt
            for (identifier, checksum) in adopt.sorted(by: { $0.key < $1.key }) {
                try MigrationBookkeeping.setChecksum(checksum, for: identifier, in: db)
            }
        }
        try runPostMigrationChecks(in: writer)
    }

    // MARK: - Reading the state

    /// The registry compared with the database's ledger and history.
    public func analysis(in writer: any DatabaseReader) throws -> MigrationAnalysis<Database> {
        MigrationAnalysis(registry: registry, snapshot: try writer.read { try MigrationBookkeeping.snapshot(in: $0) })
    }

    /// Every step's state: applied, pending, modified, out of order, partly merged; and
    /// unknown ledger identifiers.
    public func migrationStatus(in reader: any DatabaseReader) throws -> MigrationStatus {
        try analysis(in: reader).status
    }

    /// The registered steps that are applied, in registration order.
    public func appliedIdentifiers(in reader: any DatabaseReader) throws -> [String] {
        try migrationStatus(in: reader).applied
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
    /// unless `acceptModified` names it); returns its identifier.
    @discardableResult
    public func rollbackLastMigration(in writer: any DatabaseWriter, acceptModified: Set<String> = []) throws -> [String] {
        try rollbackMigrations(in: writer, steps: 1, acceptModified: acceptModified)
    }

    /// Rolls back the latest `steps` applied steps, latest first, each in its own
    /// transaction with its ledger and history rows, then verifies. Refuses before
    /// changing anything when one of them has no down closure, or was edited since it
    /// was applied and `acceptModified` does not name it.
    @discardableResult
    public func rollbackMigrations(in writer: any DatabaseWriter, steps count: Int, acceptModified: Set<String> = []) throws -> [String] {
        try rollback(.latest(count), in: writer, acceptModified: acceptModified)
    }

    /// Rolls back every applied step registered after `target`, latest first, leaving
    /// the database as `migrate(in:upTo: target)` would have.
    @discardableResult
    public func rollbackMigrations(in writer: any DatabaseWriter, to target: String, acceptModified: Set<String> = []) throws -> [String] {
        try rollback(.after(target), in: writer, acceptModified: acceptModified)
    }

    /// Rolls back the steps `selection` names, as the core's rollback plan says
    /// (`MigrationAnalysis.rollbackPlan`): each step's down closure, exactly once, then
    /// `MigrationBookkeeping.forget` of its recorded identifiers, then a foreign-key
    /// check that fails on violations the down step added. The SQLCipher runner does
    /// the same; `RunnerScenarios` holds both to it.
    private func rollback(_ selection: RollbackSelection, in writer: any DatabaseWriter, acceptModified: Set<String>) throws -> [String] {
        let (rolledBack, initial): ([String], ForeignKeyViolations) = try writer.barrierWriteWithoutTransaction { db in
            let analysis = MigrationAnalysis(registry: registry, snapshot: try MigrationBookkeeping.snapshot(in: db))
            let doomed = try analysis.rollbackPlan(selection, acceptModified: acceptModified)
            // As GRDB runs its steps: foreign keys off, so a down step may rebuild a table
            // (the 12-step procedure), and checked before each commit.
            let enforced = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
            if enforced { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
            defer { if enforced { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
            // What the database had before: a down closure runs once, so this is learned
            // first, not by undoing it. Kept up to date after each step.
            guard !doomed.isEmpty else { return ([], ForeignKeyViolations()) }
            let initial = try Self.violations(in: db)
            var known = initial
            for (position, step) in doomed.enumerated() {
                observer?(.willRollback(identifier: step.identifier, position: position + 1, total: doomed.count))
                let start = ContinuousClock.now
                try db.inTransaction(.immediate) {
                    do {
                        try step.rollback?(db)
                    } catch {
                        throw Self.failure(of: step, .rollback, error)
                    }
                    try MigrationBookkeeping.forget(step.recordedIdentifiers, in: db)
                    let after = try Self.violations(in: db)
                    let added = after.added(since: known)
                    if !added.isEmpty {
                        throw MigrationStepError(identifier: step.identifier, phase: .rollback, sourceFile: step.sourceFile, line: nil,
                                                 underlying: MigrationKitError.foreignKeyViolationsAdded(added))
                    }
                    known = after
                    return .commit
                }
                observer?(.didRollback(identifier: step.identifier, duration: ContinuousClock.now - start))
            }
            return (doomed.map(\.identifier), initial)
        }
        // Violations the database already had are kept, as the steps' checks kept them.
        try runPostMigrationChecks(in: writer, tolerating: initial)
        return rolledBack
    }

    /// Every foreign-key violation, listed only when the count says there are some
    /// (the common case costs one pass and no list).
    private static func violations(in db: Database) throws -> ForeignKeyViolations {
        try DatabaseChecks.foreignKeyViolationCount(in: db) > 0 ? DatabaseChecks.foreignKeyViolations(in: db) : ForeignKeyViolations()
    }

    // MARK: - Verifying

    /// Verifies the database as after a migration: the host's closures where given, the
    /// verifier otherwise. Throws the first problem (an app's own check's error wrapped
    /// in a `HostVerificationError`, as the SQLCipher runner does).
    public func runPostMigrationChecks(in reader: any DatabaseReader) throws {
        try runPostMigrationChecks(in: reader, tolerating: ForeignKeyViolations())
    }

    /// The same, passing foreign-key violations the database had before a rollback.
    private func runPostMigrationChecks(in reader: any DatabaseReader, tolerating tolerated: ForeignKeyViolations) throws {
        if let failure = try verificationReport(in: reader, tolerating: tolerated).firstFailure { throw failure }
    }

    /// Every check, passed or failed, for reports: the host's where it gives them (one
    /// check per part), the verifier's otherwise.
    public func verificationReport(in reader: any DatabaseReader) throws -> VerificationReport {
        try verificationReport(in: reader, tolerating: ForeignKeyViolations())
    }

    private func verificationReport(in reader: any DatabaseReader, tolerating tolerated: ForeignKeyViolations) throws -> VerificationReport {
        try reader.read { db in
            let integrity = host.verifyIntegrity.map { custom in [VerificationCheck.host(.integrity) { try custom(db) }] }
                ?? verifier.integrityChecks(db)
            let postMigration = host.verifyPostMigration.map { custom in [VerificationCheck.host(.postMigration) { try custom(db) }] }
                ?? verifier.postMigrationChecks(db, tolerating: tolerated)
            return VerificationReport(checks: integrity + postMigration)
        }
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
