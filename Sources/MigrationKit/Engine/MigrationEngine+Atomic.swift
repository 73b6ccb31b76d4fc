/// `--atomic` and `--dry-run`: every pending step and the verification in one
/// transaction.
extension MigrationEngine {
    /// What the atomic transaction decided under the write lock.
    private struct AtomicWork {
        let plan: MigrationPlan<Database>
        /// A dry run's schema before any step.
        let schemaBefore: String?

        /// One transaction: every step deferred, whatever it says.
        var foreignKeyHandling: StepTransaction<Database>.Handling { .init(running: plan.steps, checks: .deferred) }
    }

    /// What the atomic transaction's steps did.
    private struct AtomicOutcome {
        var steps: [MigrationReport.Step] = []
        var changed = ChangedTables()
        var verification = VerificationRun(summary: [], unmetNeeds: [])
        var schemaAfter: String?
    }

    /// Every pending step and the verification in one transaction; for a dry run,
    /// rolled back at the end whatever happened. Each step's body runs exactly once.
    func migrateAtomically(_ db: Database, through lastIndex: Int, options: MigrateOptions, from reading: LedgerReading?) throws -> MigrationReport {
        var report = MigrationReport()
        report.isDryRun = options.mode == .dryRun
        let clock = ContinuousClock()
        let foreignKeys = ForeignKeyBaseline()
        // The page HMACs are checked on the file as it is, before the transaction:
        // inside it the check would read pages the transaction has not written back.
        // The pages the transaction writes are encrypted afresh, with new HMACs.
        // Limited to what changed where the layer can tell what a step wrote.
        let limited = options.verification == .changedTables && db.canRecordWrittenTables
        let checksPages = !limited && verificationSuite.checksPages && DatabaseChecks.cipherPageChecking(db) == .applies
        if checksPages { try verifier.verifyFileIntegrity(db) }
        let graph = limited ? ForeignKeyGraph() : nil
        let isDryRun = report.isDryRun
        // Planned outside the lock, and again under it only when another process
        // committed meanwhile.
        let reading = try reading ?? readLedger(db)
        let readingPlan = try plan(from: reading, through: lastIndex, options: options)
        var work = AtomicWork(plan: readingPlan, schemaBefore: nil)
        var transaction = StepTransaction(db, baseline: foreignKeys, commits: !isDryRun, limitedBy: graph)
        let outcome: AtomicOutcome
        do {
            outcome = try transaction.run(
                prepare: {
                    let schemaBefore = isDryRun ? try SchemaDump.canonicalSQL(of: db) : nil
                    let planned = try dataVersion(db) == reading.dataVersion ? readingPlan : plan(db, through: lastIndex, options: options)
                    // A run with nothing to do writes nothing.
                    if planned.changesAnything { try MigrationBookkeeping.moveLegacyHistory(in: db) }
                    try recordBookkeeping(planned, in: db)
                    work = AtomicWork(plan: planned, schemaBefore: schemaBefore)
                    return work.foreignKeyHandling
                },
                body: { attempt in
                    var outcome = AtomicOutcome()
                    let pending = work.plan.steps
                    for (offset, step) in pending.enumerated() {
                        let stepStart = clock.now
                        if attempt == .first {
                            observer?(.willApply(identifier: step.identifier, position: offset + 1, total: pending.count))
                        }
                        outcome.changed.add(try apply(step, in: db, recordingChanges: limited, appliedMerged: work.plan.appliedMerged[step.identifier]))
                        try MigrationBookkeeping.recordApplied(step, duration: clock.now - stepStart, in: db)
                        let duration = clock.now - stepStart
                        outcome.steps.append(MigrationReport.Step(identifier: step.identifier, duration: duration))
                        if attempt == .first { observer?(.didApply(identifier: step.identifier, duration: duration)) }
                    }
                    // Inside the transaction: foreign keys are checked by the transaction
                    // when the body returns (against what the database had before it);
                    // integrity and the rest are checked here.
                    outcome.verification = try runVerification(in: db, foreignKeys: work.foreignKeyHandling.isChecked ? .checkedByTransaction : .skipped,
                                                               changed: graph.map { (outcome.changed, $0) })
                    if isDryRun { outcome.schemaAfter = try SchemaDump.canonicalSQL(of: db) }
                    return (outcome, outcome.changed)
                }).outcome
        } catch {
            throw failure(error, of: nil)
        }
        reportBookkeeping(of: work.plan, in: &report)
        report.steps = outcome.steps
        report.verification = outcome.verification.summary
        report.unmetNeeds = outcome.verification.unmetNeeds
        report.schemaBefore = work.schemaBefore
        report.schemaAfter = outcome.schemaAfter
        if checksPages {
            report.verification.insert("cipher_integrity_check", at: 0)  // run before the transaction
        }
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        return report
    }
}
