import MigrationKit

/// Rolling back through the steps' down closures, latest first.
extension SQLCipherMigrationRunner {
    /// Rolls back the latest applied step (refused if edited since it was applied,
    /// unless `acceptModified` names it).
    @discardableResult
    public func rollbackLastMigration(in writer: SQLCipherWriter, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollbackMigrations(in: writer, steps: 1, acceptModified: acceptModified)
    }

    /// Rolls back the `steps` latest applied steps, latest first. Every one of them
    /// must have a rollback, and none may have been edited since it was applied unless
    /// `acceptModified` names it; that is checked before the first is touched.
    @discardableResult
    public func rollbackMigrations(in writer: SQLCipherWriter, steps: Int, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollback(.latest(steps), in: writer, acceptModified: acceptModified)
    }

    /// Rolls back every applied step registered after `target`, latest first, leaving
    /// the database as `migrate(upTo: target)` would have.
    @discardableResult
    public func rollbackMigrations(in writer: SQLCipherWriter, to target: String, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollback(.after(target), in: writer, acceptModified: acceptModified)
    }

    /// Rolls back one named step, which must be the latest applied.
    @discardableResult
    public func rollbackMigration(_ identifier: String, in writer: SQLCipherWriter, acceptModified: Set<String> = []) throws -> MigrationReport {
        try rollback(.only(identifier), in: writer, acceptModified: acceptModified)
    }

    /// The identifiers `rollbackMigrations(in:steps:)` would roll back, in order, or the
    /// error it would throw, without changing anything: for checks made before a
    /// backup is taken.
    public func rollbackPlan(in writer: SQLCipherWriter, steps: Int, acceptModified: Set<String> = []) throws -> [String] {
        try writer.read { try analysis(of: $0).rollbackPlan(.latest(steps), acceptModified: acceptModified) }.map(\.identifier)
    }

    /// The identifiers `rollbackMigrations(in:to:)` would roll back, or its error.
    public func rollbackPlan(in writer: SQLCipherWriter, to target: String, acceptModified: Set<String> = []) throws -> [String] {
        try writer.read { try analysis(of: $0).rollbackPlan(.after(target), acceptModified: acceptModified) }.map(\.identifier)
    }

    private func rollback(_ selection: RollbackSelection, in writer: SQLCipherWriter, acceptModified: Set<String>) throws -> MigrationReport {
        let lock = try DatabaseFileLock.exclusive(path: writer.path, timeout: writer.configuration.busyTimeout)
        defer { lock.release() }
        let clock = ContinuousClock()
        let start = clock.now
        var report = MigrationReport()
        let foreignKeys = ForeignKeyBaseline()
        try writer.writeWithoutTransaction { db in try TruncatingJournal.during(db) {
            let plan = try analysis(of: db).rollbackPlan(selection, acceptModified: acceptModified)
            for (offset, step) in plan.enumerated() {
                let stepStart = clock.now
                try ForeignKeyDeferral.inTransaction(
                    db, baseline: foreignKeys,
                    prepare: {
                        // Under the write lock: the step must still be the latest applied.
                        let latest = try analysis(of: db).walkableAppliedSteps().last
                        guard latest?.identifier == step.identifier else {
                            throw MigrationKitError.rollbackMustTargetLatestApplied(latestApplied: latest?.identifier, requested: step.identifier)
                        }
                    },
                    changesOnlyTheDatabase: { step.changesOnlyTheDatabase },
                    scope: { _, _ in nil },
                    body: { _, attempt in
                        if attempt == .first {
                            observer?(.willRollback(identifier: step.identifier, position: offset + 1, total: plan.count))
                        }
                        try run(step, phase: .rollback, in: db)
                        try MigrationBookkeeping.forget(step.recordedIdentifiers, in: db)
                    },
                    failing: { _, error in Self.attributing(error, to: step, phase: .rollback) })
                let duration = clock.now - stepStart
                report.steps.append(MigrationReport.Step(identifier: step.identifier, duration: duration))
                observer?(.didRollback(identifier: step.identifier, duration: duration))
            }
            try runVerification(in: db, foreignKeys: .tolerating(foreignKeys.tolerated))
        } }
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        report.duration = clock.now - start
        return report
    }

    /// The registry compared with what the database holds now.
    private func analysis(of db: SQLCipherDatabase) throws -> MigrationAnalysis<SQLCipherDatabase> {
        MigrationAnalysis(registry: registry, snapshot: try MigrationHistory.snapshot(in: db))
    }
}
