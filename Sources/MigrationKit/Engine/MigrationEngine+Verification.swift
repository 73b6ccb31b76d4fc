/// The verification after every migrate and rollback: the host's checks where it has
/// them, the verifier's otherwise (`VerificationSuite`).
extension MigrationEngine {
    /// The host's checks or the verifier's.
    var verificationSuite: VerificationSuite<Database> { VerificationSuite(host: host, verifier: verifier) }

    /// Every check, passed or failed, for reports.
    package func verificationReport(in db: Database, foreignKeys: ForeignKeyVerification = .strict) -> VerificationReport {
        VerificationReport(checks: verificationSuite.integrity(db, changedTables: nil).checks
            + verificationSuite.postMigration(db, foreignKeys: foreignKeys).checks)
    }

    /// Verifies as `verificationSuite` composes it, throws the first problem, and
    /// returns what was checked, in words (`MigrationReport.verification`), and what it
    /// could not check for want of what only the app registers, which is no problem.
    ///
    /// - Parameter changed: the tables the run wrote, to check only them (quick_check;
    ///   their foreign keys were checked by each transaction, with the run's graph,
    ///   which names them here without reading every table's foreign keys again); nil
    ///   checks the whole file.
    @discardableResult
    package func runVerification(in db: Database, foreignKeys: ForeignKeyVerification,
                                 changed change: (tables: ChangedTables, graph: ForeignKeyGraph)? = nil) throws -> VerificationRun {
        try runVerification(in: db, foreignKeys: foreignKeys, integrityOf: try change.map { try $0.tables.existing(in: db) },
                            foreignKeyGraph: change.map { ($0.tables, $0.graph) })
    }

    /// Verifies as `runVerification(in:foreignKeys:changed:)` does, for a layer that
    /// learns what a run wrote on its own (GRDB's transaction observers): the integrity
    /// of `tables` (nil: the whole file), and foreign keys as `foreignKeys` says.
    @discardableResult
    package func runVerification(in db: Database, foreignKeys: ForeignKeyVerification, integrityOf tables: [String]?) throws -> VerificationRun {
        try runVerification(in: db, foreignKeys: foreignKeys, integrityOf: tables, foreignKeyGraph: nil)
    }

    private func runVerification(in db: Database, foreignKeys: ForeignKeyVerification, integrityOf tables: [String]?,
                                 foreignKeyGraph change: (tables: ChangedTables, graph: ForeignKeyGraph)?) throws -> VerificationRun {
        observer?(.willVerify)
        let clock = ContinuousClock()
        let start = clock.now
        let integrity = verificationSuite.integrity(db, changedTables: tables)
        if let failure = integrity.failure { throw failure }
        let postMigration: VerificationSuite<Database>.Part
        if case .skipped = foreignKeys {
            postMigration = verificationSuite.postMigration(db, foreignKeys: .skipped)
        } else if let change {
            // Checked by the transactions; named here, as they saw them.
            let scope = try change.tables.foreignKeyScope(using: change.graph, in: db)
            postMigration = verificationSuite.postMigration(db, foreignKeys: .checkedByTransaction, foreignKeyTables: scope.count)
        } else {
            postMigration = verificationSuite.postMigration(db, foreignKeys: foreignKeys)
        }
        if let failure = postMigration.failure { throw failure }
        observer?(.didVerify(duration: clock.now - start))
        return VerificationRun(summary: integrity.summary + postMigration.summary,
                               unmetNeeds: VerificationReport(checks: integrity.checks + postMigration.checks).unmetNeeds)
    }
}

/// What the verification after a migrate or rollback checked, in words
/// (`MigrationReport.verification`), and what it could not check for want of what only
/// the app registers (`MigrationReport.unmetNeeds`).
package struct VerificationRun: Sendable {
    package let summary: [String]
    package let unmetNeeds: [AppExtensionNeed]
}
