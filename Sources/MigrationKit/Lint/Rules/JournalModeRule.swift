/// `PRAGMA journal_mode = …` in a migration.
///
/// The journal mode belongs to the database, not to one migration: it changes how every
/// connection writes it, and SQLite cannot switch into or out of WAL inside the
/// transaction every migration runs in ("cannot change into wal mode from within a
/// transaction"). Reading it (`PRAGMA journal_mode`) is harmless and not reported.
struct JournalModeRule: LintRule {
    static let id = "journal-mode"

    var checksDownSections: Bool { true }

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] {
        guard case .pragma(let name) = statement.shape, name.key == "journal_mode",
              statement.isSymbol(name.tokenIndex + 1, "=") || statement.isSymbol(name.tokenIndex + 1, "(") else { return [] }
        return [scope.finding(Self.id, .error, at: statement.token(name.tokenIndex), in: statement,
                              message: "PRAGMA journal_mode changes how every connection writes the database, and cannot switch into or out of WAL inside the transaction the migration runs in.",
                              fix: "Set the journal mode where the database is opened (the app, or once with the sqlcipher shell), not in a migration; MigrationKit keeps whatever mode the database has.")]
    }
}
