/// Statements that manage transactions (or cannot run inside one) in a migration.
///
/// The runner wraps every migration in `BEGIN IMMEDIATE … COMMIT` together with its
/// ledger row; that is what makes a failed migration leave nothing behind. A
/// migration's own COMMIT or ROLLBACK breaks that, `BEGIN` fails ("cannot start a
/// transaction within a transaction"), and VACUUM, ATTACH and DETACH refuse to run
/// inside a transaction at all. `BEGIN`/`END` of a trigger body, `ON CONFLICT
/// ROLLBACK` and `RAISE(ROLLBACK, …)` never start a statement, so they never match.
///
/// A file's own transaction around all its statements (`SQLSection.OwnTransaction`,
/// left out when the file was read) and a request to run outside a transaction
/// (goose's `NO TRANSACTION`, diesel's `run_in_transaction = false`, sqlx's
/// `-- no-transaction`, dbmate's `transaction:false`) are notes: the
/// file runs as one step in the runner's transaction all the same.
struct TransactionControlRule: LintRule {
    static let id = "transaction-control"

    var checksDownSections: Bool { true }

    func findings(in file: SQLMigrationFile, context: LintContext) -> [LintFinding] {
        var notes: [LintFinding] = []
        for section in [file.up, file.down ?? file.emptyDown].compactMap({ $0 }) {
            guard let own = section.ownTransaction else { continue }
            let lines = own.lines.map(String.init).joined(separator: ", ")
            notes.append(LintFinding(rule: Self.id, severity: .note, path: section.path, line: own.beginLine,
                                     message: "The file's own transaction (BEGIN … COMMIT, and any PRAGMA foreign_keys around them: lines \(lines)) is left out: the runner runs this migration as one step in its own transaction, with foreign keys off around it and checked (PRAGMA foreign_key_check) before it commits.",
                                     fix: "Nothing to do; remove those lines once no other tool runs this file."))
        }
        if let request = file.noTransactionRequest {
            notes.append(LintFinding(rule: Self.id, severity: .note, path: request.path, line: request.line,
                                     message: "The file asks to run outside a transaction; the runner runs it in its own transaction all the same, as every migration, so that a failure leaves nothing behind (what SQLite cannot run inside a transaction, such as VACUUM, is reported as an error).",
                                     fix: "Nothing to do; remove the request once no other tool runs this file."))
        }
        return notes
    }

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard let first = statement.token(0), first.kind == .word else { return [] }
        let keyword = first.text.uppercased()
        let removeIt = "Remove it; the runner runs every migration inside its own BEGIN IMMEDIATE … COMMIT."
        let message: String
        var fix = removeIt
        switch keyword {
        case "BEGIN":
            message = "BEGIN starts a transaction, but the runner already runs this migration inside one; SQLite fails with \"cannot start a transaction within a transaction\"."
        case "COMMIT", "END":
            message = "\(keyword) commits the transaction the runner wrapped around this migration, so the rest of the migration and its ledger entry are no longer applied atomically (and the runner's own COMMIT then fails)."
        case "ROLLBACK":
            message = "ROLLBACK undoes or ends the transaction the runner wrapped around this migration, so the migration no longer applies all-or-nothing with its ledger entry."
            fix = removeIt + " To fail a migration on purpose, make a statement fail (for example SELECT RAISE(ABORT, '…') inside a trigger, or a CHECK constraint)."
        case "SAVEPOINT", "RELEASE":
            message = "\(keyword) manages a savepoint inside the transaction the runner wrapped around this migration; the migration is already all-or-nothing, and a mismatched RELEASE or ROLLBACK TO leaves it half-applied or failing."
        case "VACUUM":
            message = "VACUUM cannot run inside a transaction, and every migration runs inside one; SQLite fails with \"cannot VACUUM from within a transaction\"."
            fix = "Remove it; run VACUUM on its own after migrating (from the host application or the command line), outside any migration."
        case "ATTACH", "DETACH":
            message = "\(keyword) cannot run inside a transaction, and every migration runs inside one; SQLite fails with \"cannot \(keyword) database within transaction\"."
            fix = "Remove it; attach the other database from the host before migrating, or move the data in a separate step outside the migration."
        default:
            return []
        }
        return [scope.finding(Self.id, .error, at: first, in: statement, message: message, fix: fix)]
    }
}
