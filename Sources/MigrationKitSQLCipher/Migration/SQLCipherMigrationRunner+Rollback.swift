import MigrationKit

/// Rolling back through the steps' down closures, latest first.
extension SQLCipherMigrationRunner {
    /// Rolls back the latest applied step.
    @discardableResult
    public func rollbackLastMigration(in writer: SQLCipherWriter) throws -> MigrationReport {
        try rollbackMigrations(in: writer, steps: 1)
    }

    /// Rolls back the `steps` latest applied steps, latest first. Every one of them
    /// must have a rollback; that is checked before the first is touched.
    @discardableResult
    public func rollbackMigrations(in writer: SQLCipherWriter, steps: Int) throws -> MigrationReport {
        try rollback(.latest(steps), in: writer)
    }

    /// Rolls back every applied step registered after `target`, latest first, leaving
    /// the database as `migrate(upTo: target)` would have.
    @discardableResult
    public func rollbackMigrations(in writer: SQLCipherWriter, to target: String) throws -> MigrationReport {
        try rollback(.after(target), in: writer)
    }

    /// Rolls back one named step, which must be the latest applied.
    @discardableResult
    public func rollbackMigration(_ identifier: String, in writer: SQLCipherWriter) throws -> MigrationReport {
        try rollback(.only(identifier), in: writer)
    }

    /// The identifiers `rollbackMigrations(in:steps:)` would roll back, in order, or the
    /// error it would throw, without changing anything: for checks made before a
    /// backup is taken.
    public func rollbackPlan(in writer: SQLCipherWriter, steps: Int) throws -> [String] {
        try writer.read { try plannedRollback(.latest(steps), applied: try appliedSteps(in: $0)) }.map(\.identifier)
    }

    /// The identifiers `rollbackMigrations(in:to:)` would roll back, or its error.
    public func rollbackPlan(in writer: SQLCipherWriter, to target: String) throws -> [String] {
        try writer.read { try plannedRollback(.after(target), applied: try appliedSteps(in: $0)) }.map(\.identifier)
    }

    /// Which applied steps a rollback undoes.
    private enum RollbackSelection {
        /// The latest `count` applied steps.
        case latest(Int)
        /// Every applied step registered after this one.
        case after(String)
        /// This step, which must be the latest applied.
        case only(String)
    }

    /// The steps to roll back, latest first, each with a rollback; throws what the
    /// rollback would refuse for.
    private func plannedRollback(_ selection: RollbackSelection, applied: [SQLCipherMigrationStep]) throws -> [SQLCipherMigrationStep] {
        let plan: [SQLCipherMigrationStep]
        switch selection {
        case .latest(let count):
            guard count >= 0 else { throw MigrationKitError.rollbackStepCountMustBeNonNegative }
            guard count <= applied.count else {
                throw MigrationKitError.rollbackBeyondApplied(requested: count, applied: applied.count)
            }
            plan = Array(applied.suffix(count).reversed())
        case .after(let target):
            let targetIndex = try registry.index(ofTarget: target)
            plan = applied.filter { (registry.index(of: $0.identifier) ?? 0) > targetIndex }.reversed()
        case .only(let identifier):
            _ = try registry.index(ofTarget: identifier)
            guard applied.last?.identifier == identifier else {
                throw MigrationKitError.rollbackMustTargetLatestApplied(latestApplied: applied.last?.identifier, requested: identifier)
            }
            plan = [applied[applied.count - 1]]
        }
        if let irreversible = plan.first(where: { $0.rollback == nil }) {
            throw MigrationKitError.rollbackNotDefined(irreversible.identifier)
        }
        return plan
    }

    private func rollback(_ selection: RollbackSelection, in writer: SQLCipherWriter) throws -> MigrationReport {
        let lock = try DatabaseFileLock.exclusive(path: writer.path, timeout: writer.configuration.busyTimeout)
        defer { lock.release() }
        let clock = ContinuousClock()
        let start = clock.now
        var report = MigrationReport()
        let foreignKeys = ForeignKeyBaseline()
        try writer.writeWithoutTransaction { db in
            let plan = try plannedRollback(selection, applied: try appliedSteps(in: db))
            for (offset, step) in plan.enumerated() {
                let stepStart = clock.now
                try Self.attributingViolations(to: { step }, phase: .rollback) {
                    try ForeignKeyDeferral.inTransaction(db, baseline: foreignKeys) {
                        // Under the write lock: the step must still be the latest applied.
                        let latest = try appliedSteps(in: db).last
                        guard latest?.identifier == step.identifier else {
                            throw MigrationKitError.rollbackMustTargetLatestApplied(latestApplied: latest?.identifier, requested: step.identifier)
                        }
                        observer?(.willRollback(identifier: step.identifier, position: offset + 1, total: plan.count))
                        try run(step, phase: .rollback, in: db)
                        // A merged step may still be recorded under the steps it replaces.
                        for identifier in [step.identifier] + step.merging {
                            try MigrationLedger.delete(identifier, in: db)
                        }
                        try MigrationHistory.delete([step.identifier] + step.merging, in: db)
                    }
                }
                let duration = clock.now - stepStart
                report.steps.append(MigrationReport.Step(identifier: step.identifier, duration: duration))
                observer?(.didRollback(identifier: step.identifier, duration: duration))
            }
            try runVerification(in: db, foreignKeys: .tolerating(foreignKeys.tolerated))
        }
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        report.duration = clock.now - start
        return report
    }

    /// The applied steps in registration order, refusing a database whose history
    /// cannot be walked (migrated by a newer version, half-applied merge).
    private func appliedSteps(in db: SQLCipherDatabase) throws -> [SQLCipherMigrationStep] {
        let analysis = MigrationAnalysis(registry: registry, snapshot: try MigrationHistory.snapshot(in: db))
        if !analysis.unknown.isEmpty { throw MigrationKitError.databaseSuperseded(unknown: analysis.unknown) }
        if let partialMerge = analysis.partialMerge { throw partialMerge }
        return analysis.appliedSteps
    }
}
