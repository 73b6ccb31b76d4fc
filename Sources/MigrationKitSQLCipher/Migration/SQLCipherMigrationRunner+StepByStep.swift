import MigrationKit

/// The default engine: each step in its own transaction with its ledger row.
extension SQLCipherMigrationRunner {
    /// One transaction per step; the plan is made outside any lock, so a refusal
    /// (superseded, out of order, edited) writes nothing, and re-made under the lock
    /// whenever another process moved the ledger meanwhile.
    func migrateStepByStep(_ db: SQLCipherDatabase, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        var report = MigrationReport()
        let foreignKeys = ForeignKeyBaseline()
        let limited = options.verification == .changedTables
        var changed = ChangedTables()
        let graph = ForeignKeyGraph()
        // `PRAGMA data_version` changes when another connection commits, and only then:
        // read with the plan, and compared under the write lock before every step, it
        // says whether the plan still describes the database (a re-made analysis per
        // step would cost O(steps) each time, so O(n²) for a long run).
        var planVersion = try dataVersion(db)
        var planned = try plan(db, through: lastIndex, options: options)
        if planned.hasBookkeeping {
            // Only the ledger and history change here: no table of the app's to check.
            try ForeignKeyDeferral.inTransaction(db, baseline: foreignKeys, scope: { limited ? [] : nil }) {
                planVersion = try dataVersion(db)
                planned = try plan(db, through: lastIndex, options: options)
                report.merges = []
                report.adoptedChecksums = []
                try recordBookkeeping(planned, in: db, report: &report)
            }
        }
        let total = planned.steps.count
        let clock = ContinuousClock()
        var next = planned.steps.startIndex
        while next < planned.steps.endIndex {
            let stepStart = clock.now
            var current: SQLCipherMigrationStep?
            var stepChanged = ChangedTables()
            let applied: SQLCipherMigrationStep? = try Self.attributingViolations(to: { current }) {
                try ForeignKeyDeferral.inTransaction(db, baseline: foreignKeys, scope: { limited ? try stepChanged.foreignKeyScope(using: graph, in: db) : nil }) {
                    // Under the write lock now: if another process committed anything since
                    // the plan was made, plan again from what the database really holds.
                    let version = try dataVersion(db)
                    if version != planVersion {
                        planVersion = version
                        foreignKeys.forget()
                        planned = try plan(db, through: lastIndex, options: options)
                        next = planned.steps.startIndex
                    }
                    guard next < planned.steps.endIndex else { return nil }
                    let step = planned.steps[next]
                    current = step
                    observer?(.willApply(identifier: step.identifier, position: report.steps.count + 1, total: max(total, report.steps.count + 1)))
                    stepChanged = try apply(step, in: db, startedAt: stepStart, recordingChanges: limited)
                    return step
                }
            }
            guard let applied else { break }
            changed.add(stepChanged)
            next += 1
            let duration = clock.now - stepStart
            report.steps.append(MigrationReport.Step(identifier: applied.identifier, duration: duration))
            observer?(.didApply(identifier: applied.identifier, duration: duration))
        }
        // Limited to changes, each step's transaction has checked its foreign keys.
        report.verification = try runVerification(in: db, foreignKeys: .tolerating(foreignKeys.tolerated), changed: limited ? (changed, graph) : nil)
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        return report
    }
}
