import MigrationKit

/// `--atomic` and `--dry-run`: every pending step and the verification in one
/// transaction.
extension SQLCipherMigrationRunner {
    /// Every pending step and the verification in one transaction; for a dry run,
    /// rolled back at the end whatever happened.
    func migrateAtomically(_ db: SQLCipherDatabase, through lastIndex: Int, options: MigrateOptions) throws -> MigrationReport {
        var report = MigrationReport()
        report.isDryRun = options.mode == .dryRun
        let clock = ContinuousClock()
        var current: SQLCipherMigrationStep?
        let foreignKeys = ForeignKeyBaseline()
        // The page HMACs are checked on the file as it is, before the transaction:
        // inside it the check would read pages the transaction has not written back.
        // The pages the transaction writes are encrypted afresh, with new HMACs.
        let limited = options.verification == .changedTables
        if !limited, verificationSuite.checksPages { try verifier.verifyFileIntegrity(db) }
        var changed = ChangedTables()
        let graph = ForeignKeyGraph()
        try Self.attributingViolations(to: { current }) {
            try ForeignKeyDeferral.inTransaction(db, baseline: foreignKeys, commit: !report.isDryRun,
                                                 scope: { limited ? try changed.foreignKeyScope(using: graph, in: db) : nil }) {
                // Run again from the start if the deferral had to look at the database
                // before it (orphans it did not know of): start the report afresh too.
                changed = ChangedTables()
                report.steps = []
                report.merges = []
                report.adoptedChecksums = []
                if report.isDryRun { report.schemaBefore = try SchemaDump.canonicalSQL(of: db) }
                let planned = try plan(db, through: lastIndex, options: options)
                try recordBookkeeping(planned, in: db, report: &report)
                let pending = planned.steps
                for (offset, step) in pending.enumerated() {
                    let stepStart = clock.now
                    current = step
                    observer?(.willApply(identifier: step.identifier, position: offset + 1, total: pending.count))
                    changed.add(try apply(step, in: db, startedAt: stepStart, recordingChanges: limited))
                    let duration = clock.now - stepStart
                    report.steps.append(MigrationReport.Step(identifier: step.identifier, duration: duration))
                    observer?(.didApply(identifier: step.identifier, duration: duration))
                }
                current = nil
                // Inside the transaction: foreign keys are checked by the deferral
                // when the body returns (against what the database had before it);
                // integrity and the rest are checked here.
                report.verification = try runVerification(in: db, foreignKeys: .checkedByTransaction, changed: limited ? (changed, graph) : nil)
                if report.isDryRun { report.schemaAfter = try SchemaDump.canonicalSQL(of: db) }
            }
        }
        if !limited, verificationSuite.checksPages, SQLCipherLibrary.hasCipherIntegrityCheck {
            report.verification.insert("cipher_integrity_check", at: 0)  // run before the transaction
        }
        report.preexistingForeignKeyViolations = foreignKeys.initial.flatMap { $0.isEmpty ? nil : $0 }
        return report
    }
}
