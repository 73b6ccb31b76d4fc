/// Stepping back from a newer build's steps (`RollbackSelection.newer`).
extension MigrationEngine {
    /// Undoes every newer step that does not allow this build, newest first, from the
    /// down SQL the newer build stored: each down, its ledger row deleted and its
    /// downgrade row marked (`MigrationBookkeeping.recordSteppedBack`), and the
    /// verification, all in one transaction under the 12-step foreign-key rules, so that a
    /// failure or a kill at any moment leaves the database as the newer build left it or
    /// as this build expects it, never between. The plan is made again under the write
    /// lock, from the stored downs as they are then, checksums checked.
    ///
    /// Nothing newer to undo is a report with no step. The report's duration is the
    /// caller's to fill in.
    func stepBack(in db: Database) throws -> MigrationReport {
        var report = MigrationReport()
        let foreignKeys = ForeignKeyBaseline()
        let clock = ContinuousClock()
        var undone: [MigrationStep<Database>] = []
        var steps: [MigrationReport.Step] = []
        var verification = VerificationRun(summary: [], unmetNeeds: [])
        try TruncatingJournal.during(db) {
            var transaction = StepTransaction(db, baseline: foreignKeys)
            do {
                _ = try transaction.run(
                    prepare: {
                        undone = try analysis(of: db).stepBackPlan().map { identifier, sql in
                            var step = MigrationStep<Database>(steppingBack: identifier, storedDown: sql)
                            let section = SQLSection(sql: sql, path: step.sourceFile ?? identifier, startLine: 1)
                            step.rollback = { db in try db.execute(section: section) }
                            return step
                        }
                        return .init(running: undone, checks: .deferred)
                    },
                    body: { attempt in
                        steps = []
                        for (offset, step) in undone.enumerated() {
                            let stepStart = clock.now
                            if attempt == .first {
                                observer?(.willRollback(identifier: step.identifier, position: offset + 1, total: undone.count))
                            }
                            do {
                                try run(step, phase: .rollback, in: db)
                            } catch {
                                throw failure(error, of: step, phase: .rollback)
                            }
                            try MigrationBookkeeping.recordSteppedBack(step.identifier, in: db)
                            let duration = clock.now - stepStart
                            steps.append(MigrationReport.Step(identifier: step.identifier, duration: duration))
                            if attempt == .first { observer?(.didRollback(identifier: step.identifier, duration: duration)) }
                        }
                        if !undone.isEmpty {
                            verification = try runVerification(in: db, foreignKeys: .checkedByTransaction)
                        }
                        return ((), ChangedTables())
                    })
            } catch {
                throw failure(error, of: nil)
            }
        }
        report.steps = steps
        report.verification = verification.summary
        report.unmetNeeds = verification.unmetNeeds
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        return report
    }
}
