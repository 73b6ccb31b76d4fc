import MigrationKit

/// The default engine: each step in its own transaction with its ledger row.
extension SQLCipherMigrationRunner {
    /// What one step's transaction decided under the write lock: the plan it went by
    /// (re-made when another process committed since the last one was made), which of
    /// its steps comes next, and the `data_version` the plan was read at.
    private struct StepTurn {
        let plan: MigrationPlan<SQLCipherDatabase>
        let next: Int
        let version: Int

        var step: SQLCipherMigrationStep? { next < plan.steps.endIndex ? plan.steps[next] : nil }
    }

    /// One transaction per step; the plan is made outside any lock, so a refusal
    /// (superseded, out of order, edited) writes nothing, and re-made under the lock
    /// whenever another process moved the ledger meanwhile. Each step's body runs
    /// exactly once; observers hear of a step as it starts and after it commits.
    func migrateStepByStep(_ db: SQLCipherDatabase, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        // Off once for the run rather than around each step's transaction, and each
        // transaction committed by truncating the journal rather than deleting it.
        try TruncatingJournal.during(db) {
            try ForeignKeyDeferral.withForeignKeysOff(db) { try migrateStepByStepWithForeignKeysOff(db, through: lastIndex, options: options) }
        }
    }

    private func migrateStepByStepWithForeignKeysOff(_ db: SQLCipherDatabase, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        var report = MigrationReport()
        let foreignKeys = ForeignKeyBaseline()
        let limited = options.verification == .changedTables
        var changed = ChangedTables()
        let graph = ForeignKeyGraph()
        // `PRAGMA data_version` changes when another connection commits, and only then:
        // read with the plan, and compared under the write lock before every step, it
        // says whether the plan still describes the database (a re-made analysis per
        // step would cost O(steps) each time, so O(n²) for a long run).
        var turn = try freshTurn(db, through: lastIndex, options: options)
        if turn.plan.hasBookkeeping {
            // Only the ledger and history change here: no table of the app's to check.
            turn = try ForeignKeyDeferral.inTransaction(
                db, baseline: foreignKeys,
                prepare: { try freshTurn(db, through: lastIndex, options: options) },
                changesOnlyTheDatabase: { _ in true },
                scope: { _, _ in limited ? [] : nil },
                body: { turn, _ in try recordBookkeeping(turn.plan, in: db) }
            ).work
            reportBookkeeping(of: turn.plan, in: &report)
        }
        let total = turn.plan.steps.count
        let clock = ContinuousClock()
        while turn.step != nil {
            let stepStart = clock.now
            let (taken, stepChanged) = try ForeignKeyDeferral.inTransaction(
                db, baseline: foreignKeys,
                prepare: { () throws -> StepTurn in
                    // Under the write lock now: if another process committed anything
                    // since the plan was made, plan again from what the database holds.
                    let version = try dataVersion(db)
                    guard version != turn.version else { return turn }
                    foreignKeys.forget()
                    return try freshTurn(db, through: lastIndex, options: options)
                },
                changesOnlyTheDatabase: { $0.step?.changesOnlyTheDatabase ?? true },
                scope: { _, stepChanged in limited ? try stepChanged.foreignKeyScope(using: graph, in: db) : nil },
                body: { taken, attempt in
                    guard let step = taken.step else { return ChangedTables() }
                    if attempt == .first {
                        observer?(.willApply(identifier: step.identifier, position: report.steps.count + 1,
                                             total: max(total, report.steps.count + 1)))
                    }
                    return try apply(step, in: db, startedAt: stepStart, recordingChanges: limited)
                },
                failing: { taken, error in Self.attributing(error, to: taken.step) })
            guard let applied = taken.step else { break }
            turn = StepTurn(plan: taken.plan, next: taken.next + 1, version: taken.version)
            changed.add(stepChanged)
            let duration = clock.now - stepStart
            report.steps.append(MigrationReport.Step(identifier: applied.identifier, duration: duration))
            observer?(.didApply(identifier: applied.identifier, duration: duration))
        }
        // Limited to changes, each step's transaction has checked its foreign keys.
        report.verification = try runVerification(in: db, foreignKeys: .tolerating(foreignKeys.tolerated), changed: limited ? (changed, graph) : nil)
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        return report
    }

    /// A plan made now, with the `data_version` read *before* it: a commit by another
    /// connection while the plan is read then shows as a changed version under the lock,
    /// and the plan is made again, rather than a stale plan passing as current.
    private func freshTurn(_ db: SQLCipherDatabase, through lastIndex: Int, options: MigrateOptions) throws -> StepTurn {
        let version = try dataVersion(db)
        return StepTurn(plan: try plan(db, through: lastIndex, options: options), next: 0, version: version)
    }
}
