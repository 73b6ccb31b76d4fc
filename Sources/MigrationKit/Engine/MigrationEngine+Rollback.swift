/// Rolling back through the steps' down closures, latest first.
extension MigrationEngine {
    /// Rolls back the steps `selection` names, as `MigrationAnalysis.rollbackPlan` says:
    /// each step's down closure exactly once, then its ledger and history rows, in one
    /// transaction per step under the 12-step foreign-key rules (a down step may rebuild
    /// a table), each checked to be the latest applied under the write lock; then the
    /// verification. Violations the database had before are kept and reported.
    /// The report's duration is the caller's to fill in.
    package func rollback(_ selection: RollbackSelection, in db: Database, acceptModified: Set<String>) throws -> MigrationReport {
        if case .newer = selection { return try stepBack(in: db) }
        var report = MigrationReport()
        let foreignKeys = ForeignKeyBaseline()
        let clock = ContinuousClock()
        try TruncatingJournal.during(db) {
            let plan = try analysis(of: db).rollbackPlan(selection, acceptModified: acceptModified)
            var legacyHistory = LegacyHistory(in: db)
            for (offset, step) in plan.enumerated() {
                let stepStart = clock.now
                var transaction = StepTransaction(db, baseline: foreignKeys)
                do {
                    try transaction.run(
                        prepare: {
                            try legacyHistory.moveIfPresent(in: db)
                            // Under the write lock: the step must still be the latest applied.
                            let latest = try analysis(of: db).walkableAppliedSteps().last
                            guard latest?.identifier == step.identifier else {
                                throw MigrationKitError.rollbackMustTargetLatestApplied(latestApplied: latest?.identifier, requested: step.identifier)
                            }
                            // A down step may rebuild a table: deferred, whatever the step says.
                            return .init(running: [step], checks: .deferred)
                        },
                        body: { attempt in
                            if attempt == .first {
                                observer?(.willRollback(identifier: step.identifier, position: offset + 1, total: plan.count))
                            }
                            try run(step, phase: .rollback, in: db)
                            try MigrationBookkeeping.forget(step.recordedIdentifiers, in: db)
                            return ((), ChangedTables())
                        })
                } catch {
                    throw failure(error, of: step, phase: .rollback)
                }
                legacyHistory.committed()
                let duration = clock.now - stepStart
                report.steps.append(MigrationReport.Step(identifier: step.identifier, duration: duration))
                observer?(.didRollback(identifier: step.identifier, duration: duration))
            }
            // As after a migrate: a step the app checks itself leaves foreign keys to it.
            report.unmetNeeds = try runVerification(in: db, foreignKeys: plan.allSatisfy(\.checksDeferredForeignKeys) ? .tolerating(foreignKeys.tolerated) : .skipped).unmetNeeds
        }
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        return report
    }
}
