import MigrationKit

/// The verification after every migrate and rollback: the host's checks where it has
/// them, the default verifier otherwise.
extension SQLCipherMigrationRunner {
    /// Verifies the database as after a migration: the host's closures where given,
    /// the default verifier otherwise. Throws the first problem.
    public func runPostMigrationChecks(in writer: SQLCipherWriter) throws {
        try writer.writeWithoutTransaction { _ = try runVerification(in: $0, foreignKeys: .strict) }
    }

    /// Every check, passed or failed, for reports.
    public func verificationReport(in writer: SQLCipherWriter) throws -> VerificationReport {
        try writer.writeWithoutTransaction { db in
            VerificationReport(checks: verificationSuite.integrity(db, changedTables: nil).checks
                + verificationSuite.postMigration(db, foreignKeys: .strict).checks)
        }
    }

    /// The host's checks or the default verifier's (see `VerificationSuite`).
    var verificationSuite: VerificationSuite { VerificationSuite(host: host, verifier: verifier) }

    /// Verifies as `verificationSuite` composes it, throws the first problem, and
    /// returns what was checked, in words (`MigrationReport.verification`).
    ///
    /// - Parameter changed: the tables the run wrote, to check only them (quick_check;
    ///   their foreign keys were checked by each transaction, with the run's graph,
    ///   which names them here without reading every table's foreign keys again); nil
    ///   checks the whole file.
    @discardableResult
    func runVerification(in db: SQLCipherDatabase, foreignKeys: ForeignKeyVerification,
                         changed change: (tables: ChangedTables, graph: ForeignKeyGraph)? = nil) throws -> [String] {
        observer?(.willVerify)
        let clock = ContinuousClock()
        let start = clock.now
        let integrity = verificationSuite.integrity(db, changedTables: try change.map { try $0.tables.existing(in: db) })
        if let failure = integrity.failure { throw failure }
        let postMigration: VerificationSuite.Part
        if let change {
            // Checked by the transactions; named here, as they saw them.
            let scope = try change.tables.foreignKeyScope(using: change.graph, in: db)
            postMigration = verificationSuite.postMigration(db, foreignKeys: .checkedByTransaction, foreignKeyTables: scope.count)
        } else {
            postMigration = verificationSuite.postMigration(db, foreignKeys: foreignKeys)
        }
        if let failure = postMigration.failure { throw failure }
        observer?(.didVerify(duration: clock.now - start))
        return integrity.summary + postMigration.summary
    }
}
