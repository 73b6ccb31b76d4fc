import Foundation
import GRDB
import MigrationKit

/// Migrating: GRDB's migrator runs the steps (`grdbMigrator()`); around it, in the one
/// barrier GRDB's migrator takes (`GRDBBarrierWriter`), what must be decided before it
/// starts (only when something asks for it), and the verification once it is done.
extension GRDBMigrationRunner {
    // MARK: - GRDB's names

    /// Applies every pending step, as GRDB's `migrate(_:)` does, then verifies what the
    /// run changed. Throws what GRDB's migrator throws (a step's own error, unchanged;
    /// GRDB's `DatabaseError` for the foreign keys a deferred step broke), or, after the
    /// steps committed, the verification's error.
    public func migrate(_ writer: any DatabaseWriter) throws {
        try migrate(in: writer)
    }

    /// Applies the pending steps up to and including `targetIdentifier`, as GRDB's
    /// `migrate(_:upTo:)`, then verifies. Where GRDB stops the process (a target not
    /// registered, or one the database is already beyond), this throws
    /// `MigrationKitError.unknownMigration` or `.databaseAlreadyMigratedBeyond` before
    /// anything runs.
    public func migrate(_ writer: any DatabaseWriter, upTo targetIdentifier: String) throws {
        try migrate(in: writer, upTo: targetIdentifier)
    }

    /// Applies every pending step asynchronously, as GRDB's `asyncMigrate(_:completion:)`:
    /// GRDB schedules the migration on the writer at once, so writes the app schedules
    /// after this call see the migrated database, and `completion` runs on the writer's
    /// queue with its connection (after the verification, when steps ran). The rare runs
    /// that must read the database before GRDB starts (`historyChecks` `.strict`,
    /// `eraseDatabaseOnSchemaChange`) read it in the same barrier, first.
    public func asyncMigrate(_ writer: any DatabaseWriter, completion: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        guard let lastIndex = registry.steps.indices.last else {
            writer.asyncBarrierWriteWithoutTransaction { completion($0) }
            return
        }
        let options = MigrateOptions()
        let run = newRun(through: lastIndex, options: options)
        let migrator = grdbMigrator(for: run)
        let barrier = barrierWriter(writer, for: run, through: lastIndex, options: options, comparingWith: migrator)
        let observer = self.observer
        migrator.asyncMigrate(barrier) { dbResult in
            do {
                let db: Database
                do {
                    db = try dbResult.get()
                } catch {
                    if let failure = run.stopped(by: error) { observer?(.didFail(failure)) }
                    throw error
                }
                let (report, foreignKeys) = run.finish()
                if !report.steps.isEmpty { _ = try verification(of: run, in: db, foreignKeys: foreignKeys) }
                completion(.success(db))
            } catch {
                completion(.failure(error))
            }
        }
    }

    // MARK: - MigrationKit's names

    /// Applies every pending step, then verifies what the run changed; a report of what
    /// ran. By default GRDB's migrator runs the steps (`migrate(_:)`); `options` asks
    /// for MigrationKit's atomic or dry runs instead.
    @discardableResult
    public func migrate(in writer: any DatabaseWriter, options: MigrateOptions = MigrateOptions()) throws -> MigrationReport {
        guard let lastIndex = registry.steps.indices.last else { return MigrationReport() }
        return try migrate(in: writer, through: lastIndex, options: options)
    }

    /// Applies the pending steps up to and including `target`, then verifies.
    ///
    /// - Throws: `MigrationKitError.unknownMigration` or `.databaseAlreadyMigratedBeyond`
    ///   before anything runs; with `.strict` history checks, the refusals they make;
    ///   what GRDB's migrator throws (a step's own error, the foreign keys a step broke);
    ///   after the steps, the verification's error.
    @discardableResult
    public func migrate(in writer: any DatabaseWriter, upTo target: String, options: MigrateOptions = MigrateOptions()) throws -> MigrationReport {
        try migrate(in: writer, through: try registry.index(ofTarget: target), options: options)
    }

    private func migrate(in writer: any DatabaseWriter, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        let clock = ContinuousClock()
        let start = clock.now
        var report: MigrationReport
        switch options.mode {
        case .perStep: report = try migrateWithGRDBsMigrator(writer, through: lastIndex, options: options)
        case .atomic, .dryRun: report = try migrateInOneTransaction(writer, through: lastIndex, options: options)
        }
        report.duration = clock.now - start
        return report
    }

    /// GRDB's migrator runs the steps, each in its own transaction, in its barrier, which
    /// also holds the checks before them and the verification after them.
    private func migrateWithGRDBsMigrator(_ writer: any DatabaseWriter, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        let run = newRun(through: lastIndex, options: options)
        let migrator = grdbMigrator(for: run)
        let barrier = barrierWriter(writer, for: run, through: lastIndex, options: options, comparingWith: migrator) { db in
            let (report, foreignKeys) = run.finish()
            // Nothing ran, nothing to verify: a launch with nothing to do runs GRDB's
            // statements and no other.
            guard !report.steps.isEmpty else { return }
            run.verified(try Self.reading(db) { try verification(of: run, in: db, foreignKeys: foreignKeys) })
        }
        do {
            try migrator.migrate(barrier, upTo: registry.steps[lastIndex].identifier)
        } catch {
            if let failure = run.stopped(by: error) { observer?(.didFail(failure)) }
            throw error
        }
        return run.outcome
    }

    /// The app's writer as GRDB's migrator gets it for `run`: in the barrier where GRDB
    /// applies the steps, the checks before them, and after them the history of a call
    /// that ended before its last planned step (`GRDBMigrationRun.finishHistory(in:)`),
    /// then `afterSteps`.
    private func barrierWriter(_ writer: any DatabaseWriter, for run: GRDBMigrationRun, through lastIndex: Int, options: MigrateOptions,
                               comparingWith migrator: DatabaseMigrator,
                               afterSteps: @escaping @Sendable (Database) throws -> Void = { _ in }) -> GRDBBarrierWriter {
        let calls = migrators.calls
        return GRDBBarrierWriter(writer) { db, applySteps in
            try holdingChangeLock(of: writer) {
                try calls.running(run, on: db) {
                    try prepare(run, in: db, through: lastIndex, options: options, comparingWith: migrator)
                    do {
                        try applySteps()
                    } catch {
                        _ = run.stopped(by: error, in: db)
                        run.finishHistory(in: db)
                        throw error
                    }
                    run.finishHistory(in: db)
                    try afterSteps(db)
                }
            }
        }
    }

    /// GRDB's migrator for a call: the one built for the steps, but with
    /// `eraseDatabaseOnSchemaChange`, whose scratch database gets the earlier version's
    /// history table the call finds in its barrier.
    private func grdbMigrator(for run: GRDBMigrationRun) -> DatabaseMigrator {
        eraseDatabaseOnSchemaChange ? grdbMigrator(reproducingLegacyHistory: { run.legacyHistorySQL }) : grdbMigrator()
    }

    /// `body` on the barrier's connection as `DatabaseWriter.read` gives one: read-only,
    /// in a transaction of its own.
    private static func reading<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.readOnly {
            var result: T?
            try db.inTransaction(.deferred) {
                result = try body()
                return .commit
            }
            guard let result else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "The transaction ended without a result.") }
            return result
        }
    }

    /// `--atomic` and `--dry-run`, which GRDB's migrator has no counterpart for: the
    /// core's engine runs every pending step and the verification in one transaction
    /// (rolled back for a dry run), with the plan GRDB's migrator would run under `.grdb`
    /// checks. A failing step's error is thrown as the step threw it, as from GRDB's
    /// migrator; the observer hears where it was declared.
    private func migrateInOneTransaction(_ writer: any DatabaseWriter, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        try holdingChangeLock(of: writer) {
            if eraseDatabaseOnSchemaChange, options.mode == .atomic, try writer.read({ try hasSchemaChanges($0) }) {
                try writer.erase()
            }
            do {
                return try writer.barrierWriteWithoutTransaction { db in try engine.migrate(db, through: lastIndex, options: options) }
            } catch let failure as MigrationStepError {
                throw failure.underlying
            }
        }
    }

    /// The call's run (`GRDBMigrationRun`): the steps it may run.
    func newRun(through lastIndex: Int, options: MigrateOptions) -> GRDBMigrationRun {
        GRDBMigrationRun(candidates: registry.steps[...lastIndex], watchesChanges: options.verification == .changedTables, observer: observer)
    }

    /// What has to be decided before GRDB's migrator starts, in its barrier, when
    /// anything has: with `.strict` history checks, the refusals and the checksums to
    /// record (`GRDBMigrationRun.adopted(_:)`); with `eraseDatabaseOnSchemaChange`, an
    /// earlier version's history table made in GRDB's scratch database too; before a
    /// target short of the last step, that the database is not beyond it. Otherwise
    /// nothing is read: GRDB's migrator is the first to touch the database.
    ///
    /// - Parameter migrator: the call's, which says whether GRDB will erase the database.
    private func prepare(_ run: GRDBMigrationRun, in db: Database, through lastIndex: Int, options: MigrateOptions,
                         comparingWith migrator: DatabaseMigrator) throws {
        let isLast = lastIndex == registry.steps.count - 1
        guard historyChecks == .strict || eraseDatabaseOnSchemaChange || !isLast else { return }
        if eraseDatabaseOnSchemaChange {
            // GRDB replays the applied steps into a scratch database to compare schemas:
            // the steps of this call run on this connection, and an earlier version's
            // history table, which GRDB would count as the app's, is made in the scratch
            // database too (the run's first step moves it; a run with nothing to do
            // writes nothing).
            run.reproducesLegacyHistory(try legacyHistorySQL(in: db))
            // A database GRDB is about to erase has no history to refuse. Asked only where
            // the answer is used: each time, GRDB replays every applied step.
            if historyChecks == .strict || !isLast, try migrator.hasSchemaChanges(db) {
                return
            }
        }
        guard historyChecks == .strict else {
            // GRDB stops the process for a target the database is already beyond.
            if !isLast { _ = try engine.analysis(of: db).pendingSteps(through: lastIndex, allowOutOfOrder: true) }
            return
        }
        let reading = try engine.readLedger(db)
        let plan = try engine.plan(from: reading, through: lastIndex, options: options)
        run.plans(plan.steps.count, from: reading)
        if !plan.checksumsToAdopt.isEmpty || !plan.acceptedEdits.isEmpty {
            try db.inTransaction(.immediate) {
                try engine.recordChecksums(plan, in: db)
                return .commit
            }
        }
        run.adopted(plan.checksumsToAdopt.keys.sorted())
    }

    /// The verification after a run GRDB's migrator finished, when steps ran: the
    /// integrity of the tables it changed (the whole file's with `.wholeFile`), and
    /// foreign keys as the steps' checks leave them to it (`ForeignKeyChecking`). What it
    /// checked, in words.
    private func verification(of run: GRDBMigrationRun, in db: Database, foreignKeys: ForeignKeyChecking) throws -> [String] {
        let tables = try run.changedTables(in: db)
        // As GRDB's migrator decides whether to check them: the connection's pragma,
        // which an app's `prepareDatabase` may have set against its configuration.
        let enforced = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
        return try engine.runVerification(in: db, foreignKeys: foreignKeys.verification(enforced: enforced),
                                          integrityOf: tables).summary
    }
}
