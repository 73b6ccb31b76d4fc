/// The default engine: each step in its own transaction with its ledger row.
extension MigrationEngine {
    /// Where a step-by-step run stands: the plan it goes by, which of its steps comes
    /// next, and the `data_version` the plan was read at. The run's one plan: re-made
    /// under the write lock when another process committed since it was read
    /// (`replanIfMoved`), advanced when a step commits.
    private struct PlanCursor {
        let plan: MigrationPlan<Database>
        private(set) var next = 0
        let version: Int

        init(plan: MigrationPlan<Database>, version: Int) {
            self.plan = plan
            self.version = version
        }

        /// The step to apply next; nil when the plan is done.
        var step: MigrationStep<Database>? { next < plan.steps.endIndex ? plan.steps[next] : nil }
        /// The plan's steps after the next one.
        var later: ArraySlice<MigrationStep<Database>> { plan.steps[min(next + 1, plan.steps.endIndex)...] }

        /// The next step committed.
        mutating func advance() { next += 1 }
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
        let graph = options.verification == .changedTables && db.canRecordWrittenTables ? ForeignKeyGraph() : nil
        var changed = ChangedTables()
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
            var transaction = StepTransaction(db, baseline: foreignKeys, limitedBy: graph, within: heldOff)
            try transaction.run(
                prepare: {
                    try legacyHistory.moveIfPresent(in: db)
                    cursor = try self.cursor(from: readLedger(db), through: lastIndex, options: options)
                    return .ownSQL
                },
                body: { _ in
                    try recordBookkeeping(cursor.plan, in: db)
                    return ((), ChangedTables())
                })
            legacyHistory.committed()
            reportBookkeeping(of: cursor.plan, in: &report)
        }
        let total = cursor.plan.steps.count
        let clock = ContinuousClock()
        var history = RunHistory()
        // Whether every step that ran had its foreign keys checked before it committed.
        var everyStepChecked = true
        do {
            while let expected = cursor.step {
                let stepStart = clock.now
                // Enforcement is set outside the transaction: for the step the plan says is
                // next, and set up again should the plan re-made under the lock say otherwise.
                var transaction = StepTransaction(db, baseline: foreignKeys, checks: foreignKeyChecks(of: expected),
                                                  limitedBy: graph, within: heldOff)
                let recording: RunHistory.Recording?
                let written: ChangedTables
                // The step the observer heard will apply: once per step, whichever attempt
                // first runs it (a retry may find another step next, when another process
                // committed in between).
                var announced: String?
                do {
                    (recording, written) = try transaction.run(
                        prepare: {
                            try legacyHistory.moveIfPresent(in: db)
                            // Under the write lock now: if another process committed anything
                            // since the plan was made, plan again from what the database holds.
                            if try replanIfMoved(&cursor, through: lastIndex, options: options, in: db) {
                                foreignKeys.forget()
                                history.forgetStandingRows()
                            }
                            // Another step may come next now, wanting its foreign keys
                            // otherwise: the transaction then sets up again for it.
                            if let step = cursor.step { return foreignKeyHandling(of: step) }
                            // Nothing left (another process applied the rest): an empty
                            // body, checked as the expected step's would have been.
                            let handling = foreignKeyHandling(of: expected)
                            return .init(checks: handling.checks, checksDeferred: handling.checksDeferred, bodyMayRunAgain: true)
                        },
                        body: { _ in
                            guard let step = cursor.step else { return (nil, ChangedTables()) }
                            if announced != step.identifier {
                                announced = step.identifier
                                observer?(.willApply(identifier: step.identifier, position: report.steps.count + 1,
                                                     total: max(total, report.steps.count + 1)))
                            }
                            let written = try apply(step, in: db, recordingChanges: graph != nil, appliedMerged: cursor.plan.appliedMerged[step.identifier])
                            let recording = history.recording(step, followedBy: cursor.later, duration: clock.now - stepStart)
                            for statement in recording.statements { try db.execute(statement) }
                            return (recording, written)
                        })
                } catch {
                    throw failure(error, of: cursor.step)
                }
                guard let applied = cursor.step, let recording else { break }
                legacyHistory.committed()
                history.committed(recording)
                everyStepChecked = everyStepChecked && foreignKeyHandling(of: applied).isChecked
                cursor.advance()
                changed.add(written)
                let duration = clock.now - stepStart
                report.steps.append(MigrationReport.Step(identifier: applied.identifier, duration: duration))
                observer?(.didApply(identifier: applied.identifier, duration: duration))
            }
        } catch {
            finish(history, in: db)
            throw error
        }
        // Limited to changes, each step's transaction has checked its foreign keys.
        let verified = try runVerification(in: db, foreignKeys: everyStepChecked ? .tolerating(foreignKeys.tolerated) : .skipped,
                                           changed: graph.map { (changed, $0) })
        report.verification = verified.summary
        report.unmetNeeds = verified.unmetNeeds
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        return report
    }

    /// How `step`, in a transaction of its own, wants its foreign keys handled.
    private func foreignKeyHandling(of step: MigrationStep<Database>) -> StepTransaction<Database>.Handling {
        .init(running: [step], checks: foreignKeyChecks(of: step))
    }

    /// Under the write lock: when another process committed since `cursor`'s plan was
    /// read, plans again from what the database holds now. Whether it did.
    private func replanIfMoved(_ cursor: inout PlanCursor, through lastIndex: Int, options: MigrateOptions, in db: Database) throws -> Bool {
        let version = try dataVersion(db)
        guard version != cursor.version else { return false }
        cursor = try self.cursor(from: LedgerReading(snapshot: MigrationBookkeeping.snapshot(in: db), dataVersion: version),
                                 through: lastIndex, options: options)
        return true
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
        PlanCursor(plan: try plan(from: reading, through: lastIndex, options: options), version: reading.dataVersion)
    }
}
