/// Which checks verify a database: the app's own where its host gives them, the
/// default verifier's otherwise. The one place that choice is made, for the report
/// (`verificationReport`), the verification after every migrate and rollback
/// (`runVerification`), and the atomic engine's page check before its transaction.
struct VerificationSuite<Database: MigrationConnection> {
    /// One half of a verification: its checks, run, and what it checked in words
    /// (`MigrationReport.verification`).
    struct Part {
        let checks: [VerificationCheck]
        package let summary: [String]

        /// The first failure, to throw.
        package var failure: (any Error)? { checks.lazy.compactMap(\.failure).first }
    }

    let host: MigrationHostIntegration<Database>
    let verifier: MigrationVerifier

    init(host: MigrationHostIntegration<Database>, verifier: MigrationVerifier) {
        self.host = host
        self.verifier = verifier
    }

    /// Whether the default integrity checks run, and with them the check of every
    /// page's HMAC (`cipher_integrity_check`) where it applies.
    var checksPages: Bool { host.verifyIntegrity == nil }

    /// The integrity half.
    ///
    /// - Parameter changedTables: nil to check the whole file; else only these tables,
    ///   which a migration wrote (none: nothing to check).
    func integrity(_ db: Database, changedTables: [String]?) -> Part {
        if let custom = host.verifyIntegrity {
            return Part(checks: [VerificationCheck.host(.integrity) { try custom(db) }], summary: ["the app's integrity checks"])
        }
        guard let tables = changedTables else {
            let checks = verifier.integrityChecks(db)
            return Part(checks: checks, summary: checks.filter(\.applies).map(Self.named))
        }
        guard !tables.isEmpty else { return Part(checks: [], summary: []) }
        let checks = verifier.changedTableIntegrityChecks(db, tables: tables)
        let notRun = checks.filter { !$0.ran }
        let checked = tables.count - notRun.count
        let summary = db.sqlite >= .tableQuickCheck ? "quick_check of \(Self.count(checked, "changed table"))" : "quick_check"
        return Part(checks: checks, summary: (checked > 0 ? [summary] : []) + notRun.map(Self.named))
    }

    /// A check as the report names it: its name, and what it could not check for want of
    /// what only the app registers ("FTS5 index t not checked: it needs the app's
    /// tokenizer x").
    private static func named(_ check: VerificationCheck) -> String {
        guard !check.checkedFully else { return check.name }
        let needs = check.unmetNeeds.spelledOut
        return check.ran ? "\(check.name) (in part: the rest needs \(needs))" : "\(check.name) not checked (it needs \(needs))"
    }

    /// The post-migration half.
    ///
    /// - Parameter foreignKeyTables: how many tables the migration's transactions
    ///   checked the foreign keys of, when they checked only the changed ones; nil when
    ///   every table's were checked (here, or by the transaction).
    func postMigration(_ db: Database, foreignKeys: ForeignKeyVerification, foreignKeyTables: Int? = nil) -> Part {
        if let custom = host.verifyPostMigration {
            return Part(checks: [VerificationCheck.host(.postMigration) { try custom(db) }], summary: ["the app's post-migration checks"])
        }
        var summary: [String] = []
        if case .skipped = foreignKeys {
        } else if let foreignKeyTables {
            if foreignKeyTables > 0 { summary.append("foreign keys of \(Self.count(foreignKeyTables, "table"))") }
        } else {
            summary.append("foreign keys")
        }
        if !verifier.requiredIndexes.isEmpty {
            summary.append(Self.count(verifier.requiredIndexes.count, "required index", plural: "required indexes"))
        }
        return Part(checks: verifier.postMigrationChecks(db, foreignKeys: foreignKeys), summary: summary)
    }

    private static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) " + (number == 1 ? noun : plural ?? noun + "s")
    }
}
