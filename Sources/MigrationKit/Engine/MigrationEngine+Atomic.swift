/// `--atomic` and `--dry-run`: every pending step and the verification in one
/// transaction.
extension MigrationEngine {
    /// What the atomic transaction decided under the write lock, once.
    private struct AtomicWork {
        let plan: MigrationPlan<Database>
        /// A dry run's schema before any step.
        let schemaBefore: String?
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
        let graph = ForeignKeyGraph()
        let isDryRun = report.isDryRun
        // Whether the transaction checks foreign keys is set before it starts: from the
        // steps the database wants now (planned again under the lock only when another
        // process committed meanwhile, a rare change taken as it comes).
        let reading = try reading ?? readLedger(db)
        let readingPlan = try plan(from: reading, through: lastIndex, options: options)
        let checking = Self.checksDeferredForeignKeys(of: readingPlan.steps)
        // One transaction: every step deferred, whatever it says.
        let (work, outcome): (AtomicWork, AtomicOutcome)
        do {
            (work, outcome) = try ForeignKeyDeferral.inTransaction(
                db, baseline: foreignKeys, commit: !isDryRun, checking: checking,
                prepare: { () throws -> AtomicWork in
                    let schemaBefore = isDryRun ? try SchemaDump.canonicalSQL(of: db) : nil
                    let planned = try dataVersion(db) == reading.dataVersion ? readingPlan : plan(db, through: lastIndex, options: options)
                    // A run with nothing to do writes nothing.
                    if planned.changesAnything { try MigrationBookkeeping.moveLegacyHistory(in: db) }
                    try recordBookkeeping(planned, in: db)
                    return AtomicWork(plan: planned, schemaBefore: schemaBefore)
                },
                changesOnlyTheDatabase: { $0.plan.steps.allSatisfy(\.changesOnlyTheDatabase) },
                scope: { _, outcome in limited ? try outcome.changed.foreignKeyScope(using: graph, in: db) : nil },
                body: { work, attempt in
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
                    // Inside the transaction: foreign keys are checked by the deferral
                    // when the body returns (against what the database had before it);
                    // integrity and the rest are checked here.
                    outcome.verification = try runVerification(in: db, foreignKeys: checking ? .checkedByTransaction : .skipped,
                                                               changed: limited ? (outcome.changed, graph) : nil)
                    if isDryRun { outcome.schemaAfter = try SchemaDump.canonicalSQL(of: db) }
                    return outcome
                })
        } catch let failure as MigrationStepError {
            observer?(.didFail(failure))
            throw failure
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
