/// The default engine: each step in its own transaction with its ledger row.
extension MigrationEngine {
    /// Where a step-by-step run stands in its plan, as one step's transaction decided it
    /// under the write lock: the plan it went by (re-made when another process committed
    /// since the last one was made), which of its steps comes next, and the
    /// `data_version` the plan was read at.
    private struct PlanCursor {
        let plan: MigrationPlan<Database>
        let next: Int
        let version: Int

        var step: MigrationStep<Database>? { next < plan.steps.endIndex ? plan.steps[next] : nil }
    }

    /// One transaction per step; the plan is made outside any lock, so a refusal
    /// (superseded, out of order, edited) writes nothing, and re-made under the lock
    /// whenever another process moved the ledger meanwhile. Each step's body runs
    /// exactly once; observers hear of a step as it starts and after it commits.
    func migrateStepByStep(_ db: Database, through lastIndex: Int, options: MigrateOptions, from reading: LedgerReading?) throws -> MigrationReport {
        // Off once for the run rather than around each step's transaction, and each
        // transaction committed by truncating the journal rather than deleting it.
        try TruncatingJournal.during(db) {
            try ForeignKeyDeferral.withForeignKeysOff(db) { heldOff in
                try migrateStepByStep(db, through: lastIndex, options: options, from: reading, within: heldOff)
            }
        }
    }

    private func migrateStepByStep(_ db: Database, through lastIndex: Int, options: MigrateOptions, from reading: LedgerReading?,
                                   within heldOff: ForeignKeysHeldOff) throws -> MigrationReport {
        var report = MigrationReport()
        let foreignKeys = ForeignKeyBaseline()
        // Limited to what changed where the layer can tell what a step wrote.
        let limited = options.verification == .changedTables && db.canRecordWrittenTables
        var changed = ChangedTables()
        let graph = ForeignKeyGraph()
        // `PRAGMA data_version` changes when another connection commits, and only then:
        // read with the plan, and compared under the write lock before every step, it
        // says whether the plan still describes the database (a re-made analysis per
        // step would cost O(steps) each time, so O(n²) for a long run). The caller's
        // reading, when it made one, is that first plan's.
        var cursor = try self.cursor(from: reading ?? readLedger(db), through: lastIndex, options: options)
        // An earlier version's history table moves in the run's first transaction, if
        // the run writes at all: a database with nothing to do is not rewritten.
        var legacyHistory = LegacyHistory(in: db)
        if cursor.plan.hasBookkeeping {
            // Only the ledger and history change here: no table of the app's to check.
            cursor = try ForeignKeyDeferral.inTransaction(
                db, baseline: foreignKeys, within: heldOff,
                prepare: {
                    try legacyHistory.moveIfPresent(in: db)
                    return try self.cursor(from: readLedger(db), through: lastIndex, options: options)
                },
                changesOnlyTheDatabase: { _ in true },
                scope: { _, _ in limited ? [] : nil },
                body: { cursor, _ in try recordBookkeeping(cursor.plan, in: db) }
            ).work
            legacyHistory.committed()
            reportBookkeeping(of: cursor.plan, in: &report)
        }
        let total = cursor.plan.steps.count
        let clock = ContinuousClock()
        var history = RunHistory()
        // Whether every step that ran had its foreign keys checked before it committed.
        var everyStepChecked = true
        do {
            while let next = cursor.step {
                let stepStart = clock.now
                // Set outside the transaction, so chosen for the step the plan says is next.
                let checks = foreignKeyChecks(of: next)
                let taken: PlanCursor
                let outcome: StepOutcome?
                do {
                    (taken, outcome) = try ForeignKeyDeferral.inTransaction(
                        db, baseline: foreignKeys, checks: checks, checking: next.checksDeferredForeignKeys, within: heldOff,
                        prepare: { () throws -> PlanCursor in
                            try legacyHistory.moveIfPresent(in: db)
                            // Under the write lock now: if another process committed anything
                            // since the plan was made, plan again from what the database holds.
                            let version = try dataVersion(db)
                            guard version != cursor.version else { return cursor }
                            foreignKeys.forget()
                            history.forgetStandingRows()
                            let fresh = try self.cursor(from: LedgerReading(snapshot: MigrationBookkeeping.snapshot(in: db), dataVersion: version),
                                                      through: lastIndex, options: options)
                            // Another step now comes next, wanting its foreign keys otherwise
                            // (enforced, or checked before it commits, or neither).
                            if let step = fresh.step,
                               foreignKeyChecks(of: step) != checks || step.checksDeferredForeignKeys != next.checksDeferredForeignKeys {
                                throw ForeignKeyChecksChanged(cursor: fresh)
                            }
                            return fresh
                        },
                        changesOnlyTheDatabase: { $0.step?.changesOnlyTheDatabase ?? true },
                        scope: { _, outcome in limited ? try outcome?.changed.foreignKeyScope(using: graph, in: db) ?? [] : nil },
                        body: { taken, attempt -> StepOutcome? in
                            guard let step = taken.step else { return nil }
                            if attempt == .first {
                                observer?(.willApply(identifier: step.identifier, position: report.steps.count + 1,
                                                     total: max(total, report.steps.count + 1)))
                            }
                            let changed = try apply(step, in: db, recordingChanges: limited, appliedMerged: taken.plan.appliedMerged[step.identifier])
                            let recording = history.recording(step, followedBy: taken.plan.steps[(taken.next + 1)...], duration: clock.now - stepStart)
                            for statement in recording.statements { try db.execute(statement) }
                            return StepOutcome(changed: changed, recording: recording)
                        },
                        failing: { taken, error in Self.attributing(error, to: taken.step) })
                } catch let changed as ForeignKeyChecksChanged {
                    cursor = changed.cursor
                    continue
                } catch let failure as MigrationStepError {
                    observer?(.didFail(failure))
                    throw failure
                }
                guard let applied = taken.step, let outcome else { break }
                legacyHistory.committed()
                history.committed(outcome.recording)
                everyStepChecked = everyStepChecked && (applied.checksDeferredForeignKeys || foreignKeyChecks(of: applied) == .immediate)
                cursor = PlanCursor(plan: taken.plan, next: taken.next + 1, version: taken.version)
                changed.add(outcome.changed)
                let duration = clock.now - stepStart
                report.steps.append(MigrationReport.Step(identifier: applied.identifier, duration: duration))
                observer?(.didApply(identifier: applied.identifier, duration: duration))
            }
        } catch {
            finish(history, in: db)
            throw error
        }
        // Limited to changes, each step's transaction has checked its foreign keys.
        let verified = everyStepChecked
            ? try runVerification(in: db, foreignKeys: .tolerating(foreignKeys.tolerated), changed: limited ? (changed, graph) : nil)
            : try runVerification(in: db, foreignKeys: .skipped, changed: limited ? (changed, graph) : nil)
        report.verification = verified.summary
        report.unmetNeeds = verified.unmetNeeds
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        return report
    }

    /// Thrown out of a step's transaction, before anything ran, when the plan re-made
    /// under the write lock starts with a step whose foreign keys are checked otherwise
    /// than the transaction was set up for: the loop sets up again for that step.
    private struct ForeignKeyChecksChanged: Error {
        let cursor: PlanCursor
    }

    /// What one step's transaction did: the tables it wrote, and its bookkeeping.
    private struct StepOutcome {
        let changed: ChangedTables
        let recording: RunHistory.Recording
    }

    /// The history rows of a run that ended before its last step committed, finished in
    /// a transaction of their own (`RunHistory.finishing`). Even when the run was stopped:
    /// what is left otherwise is harmless, so a failure here is not the run's.
    private func finish(_ history: RunHistory, in db: Database) {
        let statements = history.finishing
        guard !statements.isEmpty else { return }
        db.unstoppable {
            try? db.inImmediateTransaction {
                for statement in statements { try db.execute(statement) }
            }
        }
    }

    /// The plan `reading` gives, at its `data_version` (read *before* its ledger: a
    /// commit by another connection while the ledger is read then shows as a changed
    /// version under the lock, and the plan is made again, rather than a stale plan
    /// passing as current).
    private func cursor(from reading: LedgerReading, through lastIndex: Int, options: MigrateOptions) throws -> PlanCursor {
        PlanCursor(plan: try plan(from: reading, through: lastIndex, options: options), next: 0, version: reading.dataVersion)
    }
}
