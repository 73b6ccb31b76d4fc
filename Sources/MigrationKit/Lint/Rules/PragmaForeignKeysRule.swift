/// `PRAGMA foreign_keys` (any form, any schema) in a migration.
///
/// The pragma is a no-op inside a transaction, and every migration runs inside one,
/// so it silently does nothing. The runner already switches foreign keys off outside
/// the transaction around every step and runs `PRAGMA foreign_key_check` before
/// committing.
struct PragmaForeignKeysRule: LintRule {
    static let id = "pragma-foreign-keys"

    var checksDownSections: Bool { true }

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard case .pragma(let name) = statement.shape, name.key == "foreign_keys" else { return [] }
        return [scope.finding(Self.id, .warning, at: statement.token(name.tokenIndex), in: statement,
                              message: "PRAGMA foreign_keys does nothing inside a transaction, and every migration runs inside one; the runner already switches foreign keys off around each step and checks them (PRAGMA foreign_key_check) before committing.",
                              fix: "Remove it. To defer foreign key checks to the end of the step instead, use PRAGMA defer_foreign_keys = ON, which does work inside a transaction.")]
    }
}
