import GRDB
import MigrationKit
import MigrationKitFiles

/// What GRDB's migrator does not do, done by the core's engine on the writer's
/// connection behind GRDB's barrier (a pool's readers see the database before or after,
/// never half way): rollback, baseline, and the verification on demand; and GRDB's own
/// erase and schema comparison, explained.
extension GRDBMigrationRunner {
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
    /// was applied and `acceptModified` does not name it. A failing down step throws
    /// `MigrationStepError`, naming it.
    @discardableResult
    public func rollbackMigrations(in writer: any DatabaseWriter, steps count: Int, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollback(.latest(count), in: writer, acceptModified: acceptModified)
    }

    /// Rolls back every applied step registered after `target`, latest first, leaving
    /// the database as `migrate(in:upTo: target)` would have.
    @discardableResult
    public func rollbackMigrations(in writer: any DatabaseWriter, to target: String, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollback(.after(target), in: writer, acceptModified: acceptModified)
    }

    /// The identifiers `rollbackMigrations(in:steps:)` would roll back, in order, or the
    /// error it would throw, without changing anything: for checks made before a
    /// backup is taken.
    package func rollbackPlan(in reader: any DatabaseReader, steps count: Int, acceptModified: Set<String> = []) throws -> [String] {
        try rollbackPlan(.latest(count), in: reader, acceptModified: acceptModified)
    }

    /// The identifiers `rollbackMigrations(in:to:)` would roll back, or its error.
    package func rollbackPlan(in reader: any DatabaseReader, to target: String, acceptModified: Set<String> = []) throws -> [String] {
        try rollbackPlan(.after(target), in: reader, acceptModified: acceptModified)
    }

    /// Steps back from every newer step that does not allow this build, newest first,
    /// with the down SQL the newer build stored in the database, in one transaction
    /// behind GRDB's barrier, then verifies; first it backs the database up to a new file
    /// at `backupPath` (mode 0600, opened with the writer's configuration, so keyed as
    /// the database is), named in the report. What cannot be stepped back from
    /// (`DatabaseCompatibility.mustRefuse`) throws `MigrationKitError.databaseSuperseded`
    /// with nothing written; nothing newer in the way is a report with no step and no
    /// backup.
    public func rollbackNewerMigrations(in writer: any DatabaseWriter, backupTo backupPath: String) throws -> MigrationReport {
        // One hold of the change lock from the judgement to the step back, so that the
        // backup is the database the step back starts from.
        try holdingChangeLock(of: writer) { lock in
            var holding = self
            holding.heldChangeLock = lock
            guard case .canStepBack = try holding.databaseCompatibility(in: writer) else {
                return try holding.rollback(.newer, in: writer, acceptModified: [])
            }
            if let failure = FileProbe.createPrivateFile(at: backupPath) { throw DurableFile.failure("create", backupPath, errno: failure) }
            try GRDBDatabaseFile.backUp(writer, configuration: writer.configuration, into: backupPath)
            var report = try holding.rollback(.newer, in: writer, acceptModified: [])
            report.backup = backupPath
            return report
        }
    }

    /// The identifiers a rollback of `selection` would undo, or its error (the command
    /// layer's rollback, which names a selection as the core plans it).
    package func rollbackPlan(_ selection: RollbackSelection, in reader: any DatabaseReader, acceptModified: Set<String>) throws -> [String] {
        try reader.read { try engine.analysis(of: $0).rollbackPlan(selection, acceptModified: acceptModified) }.map(\.identifier)
    }

    /// Rolls back `selection`, behind GRDB's barrier.
    package func rollback(_ selection: RollbackSelection, in writer: any DatabaseWriter, acceptModified: Set<String>) throws -> MigrationReport {
        try changing(writer) { try engine.rollback(selection, in: $0, acceptModified: acceptModified) }
    }

    /// Runs `body` on the writer's connection, outside any transaction (the engine opens
    /// its own), behind GRDB's barrier and under the change lock, and times it.
    private func changing(_ writer: any DatabaseWriter, _ body: (Database) throws -> MigrationReport) throws -> MigrationReport {
        let clock = ContinuousClock()
        let start = clock.now
        var report = try holdingChangeLock(of: writer) { try writer.barrierWriteWithoutTransaction(body) }
        report.duration = clock.now - start
        return report
    }

    // MARK: - History tools

    /// Records every step up to and including `target` as applied without running it,
    /// for a database whose schema predates MigrationKit (Flyway's `baseline`). Steps
    /// already recorded are left as they are; returns the identifiers newly recorded.
    /// The identifiers `baseline(in:upTo:)` would record, reading only.
    package func baselinePlan(in reader: any DatabaseReader, upTo target: String) throws -> [String] {
        let targetIndex = try registry.index(ofTarget: target)
        return try reader.read { try engine.baselinePlan($0, through: targetIndex) }
    }

    @discardableResult
    package func baseline(in writer: any DatabaseWriter, upTo target: String) throws -> [String] {
        let targetIndex = try registry.index(ofTarget: target)
        return try holdingChangeLock(of: writer) { try writer.barrierWriteWithoutTransaction { try engine.baseline($0, through: targetIndex) } }
    }

    /// Takes over a database another migration tool migrated (golang-migrate, dbmate,
    /// sqlx, diesel, goose, Flyway, Prisma, Drizzle, refinery, Cloudflare D1, sql-migrate,
    /// Liquibase, Atlas, yoyo) or an app's own `PRAGMA user_version` ladder: reads
    /// that tool's ledger (`OtherToolLedger`), maps each version it records to the step of
    /// the migration file that carries it (a ladder's N to the first N steps, SQLDelight's
    /// N to every `K.sqm` below N), proves that
    /// the database's schema is what those steps make on an empty scratch database, and
    /// records them as applied, behind GRDB's barrier, in one transaction. Then
    /// `migrate(_:)` runs the rest.
    ///
    /// An app moving off a `user_version` ladder calls it at launch, before migrating,
    /// while nothing is applied and the ladder is above 0.
    ///
    /// - Parameters:
    ///   - writer: the app's database queue or pool.
    ///   - tool: the tool whose ledger to read; nil reads the only one the database has.
    ///   - retiringLedger: drop the other tool's ledger tables (set `user_version` to 0)
    ///     in the same transaction; by default they stay, and schema comparisons leave
    ///     them out.
    ///   - dryRun: read, map and prove, and write nothing.
    ///   - acceptingCodeMigrations: versions the tool ran as code (Flyway's Java and
    ///     Kotlin migrations) that no file carries are passed over, for a fleet in which
    ///     no database is older than them; by default they are refused, since a
    ///     database not yet past them would never get what they do.
    /// - Throws: `OtherToolAdoptionError` naming every problem, with nothing written.
    @discardableResult
    public func adopt(in writer: any DatabaseWriter, from tool: OtherTool? = nil, retiringLedger: Bool = false,
                      dryRun: Bool = false, acceptingCodeMigrations: Bool = false) throws -> OtherToolAdoption {
        try holdingChangeLock(of: writer) { try writer.barrierWriteWithoutTransaction { db in
            try engine.adopt(db, from: tool, retiringLedger: retiringLedger, dryRun: dryRun, acceptingCodeMigrations: acceptingCodeMigrations) { steps in
                try replayedSchema(of: steps, configuredAs: db.configuration)
            }
        } }
    }

    /// Whether GRDB's `hasSchemaChanges` finds the database's schema other than what its
    /// applied steps make, and why, for a sentence: applied identifiers no step has
    /// (removed or renamed steps), or else the schema the applied steps make today
    /// against the database's. Nil when GRDB finds no change: GRDB decides, so an edited
    /// step that makes the same schema is no change.
    package func schemaChange(in reader: any DatabaseReader) throws -> SchemaChange? {
        try reader.read { db in
            guard try hasSchemaChanges(db) else { return nil }
            // The schema GRDB compared with: the applied steps replayed.
            return try engine.schemaChange(db, decided: true) { steps in
                try replayedSchema(of: steps, configuredAs: db.configuration)
            }
        }
    }

    /// The schema `steps` make, run by GRDB's migrator into a scratch file database
    /// configured as the app's: what GRDB's own schema comparison and an adoption's proof
    /// compare the database with.
    private func replayedSchema(of steps: [MigrationStep<Database>], configuredAs configuration: Configuration) throws -> [SchemaDump.Object] {
        var replay = self
        replay.registry = MigrationRegistry()
        for step in steps { replay.registry.registerAsGRDB(step) }
        replay.eraseDatabaseOnSchemaChange = false
        return try GRDBScratchDatabase.withQueue(configuredAs: configuration) { scratch in
            try replay.grdbMigrator().migrate(scratch)
            return try scratch.read { try SchemaDump.objects(in: $0) }
        }
    }

    /// Erases the database as GRDB's `erase()` does (every table, view, index and
    /// trigger, the ledger and MigrationKit's history).
    package func erase(_ writer: any DatabaseWriter) throws {
        try holdingChangeLock(of: writer) { try writer.erase() }
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
