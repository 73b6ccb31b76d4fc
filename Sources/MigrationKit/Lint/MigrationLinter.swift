/// Checks SQL migration files before they run, without touching a database.
///
/// It reads each migration's statements with SQLite's own tokenization, so a
/// keyword inside a string, a quoted name or a comment never raises a finding, and
/// it follows the batch in order: what earlier migrations created, filled, renamed
/// or dropped changes what later ones risk. Up sections get every rule; down
/// sections get the rules about whether SQL can run at all (a rollback on an old
/// SQLite must not be the first to discover DROP COLUMN is missing).
///
///     let linter = MigrationLinter(context: LintContext(sqliteVersion: SQLiteVersion(3, 15, 2)))
///     for finding in linter.lint(try SQLMigrationDirectory(path: "migrations").load()) {
///         print(finding)
///     }
public struct MigrationLinter: Sendable {
    /// What the linter knows of the target database and its SQLite.
    public let context: LintContext

    /// Every rule, in no particular order (findings are sorted afterwards).
    static let rules: [any LintRule] = [
        NotNullColumnWithoutDefaultRule(),
        NonConstantDefaultRule(),
        UnsupportedSQLRule(),
        TransactionControlRule(),
        DropTableWithDataRule(),
        DropColumnWithDataRule(),
        PragmaForeignKeysRule(),
        JournalModeRule(),
        RenameTableReferencedByViewRule(),
        MissingDownRule(),
        SyntaxErrorRule(),
    ]

    /// A linter that judges migrations against `context`.
    public init(context: LintContext) {
        self.context = context
    }

    /// Findings for `files`, taken as one batch run in the given order, sorted by
    /// path, then line.
    public func lint(_ files: [SQLMigrationFile]) -> [LintFinding] {
        var batch = BatchSchema()
        var findings: [LintFinding] = []
        for file in files {
            for rule in Self.rules {
                findings += rule.findings(in: file, context: context)
            }
            lint(file.up, of: file.identifier, isDown: false, batch: &batch, into: &findings)
            if let down = file.down {
                // A down section runs later, on a rollback, against a different state:
                // check it against a copy, which it never changes.
                var unchanged = batch
                lint(down, of: file.identifier, isDown: true, batch: &unchanged, into: &findings)
            }
        }
        return findings.enumerated()
            .sorted { lhs, rhs in
                (lhs.element.path, lhs.element.line, lhs.offset) < (rhs.element.path, rhs.element.line, rhs.offset)
            }
            .map(\.element)
    }

    private func lint(_ section: SQLSection, of migration: String, isDown: Bool, batch: inout BatchSchema, into findings: inout [LintFinding]) {
        for statement in SQLStatementSplitter.split(section.sql) {
            let reader = StatementReader(statement)
            let scope = LintScope(section: section, context: context, batch: batch)
            var found: [LintFinding] = []
            for rule in Self.rules where !isDown || rule.checksDownSections {
                if rule.isFallback, found.contains(where: { $0.severity == .error }) { continue }
                found += rule.findings(in: reader, scope)
            }
            findings += found
            if !isDown { batch.record(reader, of: migration, in: section, context: context) }
        }
    }
}
