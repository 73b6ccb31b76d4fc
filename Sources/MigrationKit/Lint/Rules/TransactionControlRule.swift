/// Statements that manage transactions (or cannot run inside one) in a migration.
///
/// The runner wraps every migration in `BEGIN IMMEDIATE … COMMIT` together with its
/// ledger row; that is what makes a failed migration leave nothing behind. A
/// migration's own COMMIT or ROLLBACK breaks that, `BEGIN` fails ("cannot start a
/// transaction within a transaction"), and VACUUM, ATTACH and DETACH refuse to run
/// inside a transaction at all. `BEGIN`/`END` of a trigger body, `ON CONFLICT
/// ROLLBACK` and `RAISE(ROLLBACK, …)` never start a statement, so they never match.
struct TransactionControlRule: LintRule {
    static let id = "transaction-control"

    var checksDownSections: Bool { true }

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
