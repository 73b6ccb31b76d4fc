/// Checks SQL migration files before they run, without touching a database.
///
/// It reads each migration's statements with SQLite's own tokenization, so a
/// keyword inside a string, a quoted name or a comment never raises a finding, and
/// it follows the batch in order: what earlier migrations created, filled, renamed
/// or dropped changes what later ones risk. Up sections get every rule; down
/// sections get the rules about whether SQL can run at all (a rollback on an old
/// SQLite must not be the first to discover DROP COLUMN is missing).
///
/// A finding is silenced by naming its rule: a comment in the file
/// (`-- migrationkit:nolint RULE` for a statement, `-- migrationkit:nolint-file RULE` for
/// the file; see `LintDirectives`) or the project's settings (`LintSuppression`).
/// `lint(_:)` leaves silenced findings out; `report(_:)` keeps them apart.
///
///     let linter = MigrationLinter(context: LintContext(sqliteVersion: SQLiteVersion(3, 15, 2)))
///     for finding in linter.lint(try SQLMigrationDirectory(path: "migrations").load()) {
///         print(finding)
///     }
package struct MigrationLinter: Sendable {
    /// What the linter knows of the target database and its SQLite.
    let context: LintContext
    /// The rules the project's settings silence (`migrationkit.toml`'s `[lint]` table);
    /// comments in the files silence others (`LintDirectives`).
    let suppressions: [LintSuppression]

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
        AppExtensionNeededRule(),
        MissingDownRule(),
        SyntaxErrorRule(),
        CompatibleButBreakingRule(),
    ]

    /// The rule that warns of a statement that needs what only the app registers
    /// (`needs-app-extension`), whose fix a command line words with its own option.
    package static let appExtensionRuleID = AppExtensionNeededRule.id

    /// Every rule's identifier, as findings and suppressions name them, `bad-suppression`
    /// (findings about the suppressions themselves) included.
    static let ruleIDs: [String] = rules.map { type(of: $0).id } + [LintDirectives.ruleID]

    private static let knownRules = Set(ruleIDs)

    /// The rules whose findings are about a migration as a whole.
    static let wholeFileRuleIDs = Set(rules.filter(\.judgesWholeFiles).map { type(of: $0).id })

    /// A linter that judges migrations against `context`, leaving unsaid what
    /// `suppressions` silence.
    package init(context: LintContext, suppressions: [LintSuppression] = []) {
        self.context = context
        self.suppressions = suppressions
    }

    /// Findings for `files`, taken as one batch run in the given order, sorted by
    /// path, then line; without those a suppression silenced (`report(_:)` keeps them).
    package func lint(_ files: [SQLMigrationFile]) -> [LintFinding] {
        report(files).findings
    }

    /// Findings for `files`, taken as one batch run in the given order: those to act on,
    /// and those a suppression silenced, each sorted by path, then line.
    ///
    /// A finding is silenced by the first of: a `-- migrationkit:nolint` comment on its
    /// statement, a `-- migrationkit:nolint-file` comment in its file, the project's
    /// suppressions for its file, then the project's for every file.
    package func report(_ files: [SQLMigrationFile]) -> LintReport {
        var batch = BatchSchema()
        var findings: [(finding: LintFinding, suppressedBy: String?)] = settingsProblems().map { ($0, nil) }
        for file in files {
            var found: [(finding: LintFinding, suppressedBy: String?)] = []
            for rule in Self.rules {
                found += rule.findings(in: file, context: context).map { ($0, nil) }
            }
            var fileWide: [String: [LintDirectives.Directive]] = [:]
            // The header and an empty down section run nothing; their comments count.
            for (section, isDown) in [(file.header, false), (file.emptyDown, true)] {
                guard let section else { continue }
                var directives = LintDirectives(section, isDown: isDown, knownRules: Self.knownRules)
                _ = directives.bind(to: [])
                fileWide[section.path, default: []] += directives.fileWide
                found += directives.problems.map { ($0, nil) }
            }
            found += lint(file.up, of: file.identifier, isDown: false, compatibility: file.compatibility, batch: &batch, fileWide: &fileWide)
            if let down = file.down {
                // A down section runs later, on a rollback, against a different state:
                // check it against a copy, which it never changes.
                var unchanged = batch
                found += lint(down, of: file.identifier, isDown: true, compatibility: file.compatibility, batch: &unchanged, fileWide: &fileWide)
            }
            findings += found.map { finding, statementSuppression in
                (finding, statementSuppression
                    ?? fileWide[finding.path]?.first { $0.rules.contains(finding.rule) }?.location
                    ?? projectSuppression(of: finding))
            }
        }
        let sorted = findings.enumerated()
            .sorted { lhs, rhs in
                (lhs.element.finding.path, lhs.element.finding.line, lhs.offset) < (rhs.element.finding.path, rhs.element.finding.line, rhs.offset)
            }
            .map(\.element)
        return LintReport(findings: sorted.filter { $0.suppressedBy == nil }.map(\.finding),
                          suppressed: sorted.compactMap { finding, by in by.map { SuppressedLintFinding(finding: finding, suppressedBy: $0) } })
    }

    /// Each statement's findings, with the `-- migrationkit:nolint` comment that silences
    /// each, if any; the section's file-wide comments go into `fileWide`.
    private func lint(_ section: SQLSection, of migration: String, isDown: Bool, compatibility: MigrationCompatibility?, batch: inout BatchSchema,
                      fileWide: inout [String: [LintDirectives.Directive]]) -> [(LintFinding, String?)] {
        let statements = SQLStatementSplitter.split(section.sql)
        var directives = LintDirectives(section, isDown: isDown, knownRules: Self.knownRules)
        let bound = directives.bind(to: statements)
        fileWide[section.path, default: []] += directives.fileWide
        var findings: [(LintFinding, String?)] = directives.problems.map { ($0, nil) }
        for (statement, silencing) in zip(statements, bound) {
            let reader = StatementReader(statement)
            let scope = LintScope(section: section, isDown: isDown, context: context, batch: batch, compatibility: compatibility)
            var found: [LintFinding] = []
            for rule in Self.rules where !isDown || rule.checksDownSections {
                if rule.isFallback, found.contains(where: { $0.severity == .error }) { continue }
                found += rule.findings(in: reader, scope)
            }
            findings += found.map { finding in (finding, silencing.first { $0.rules.contains(finding.rule) }?.location) }
            if !isDown { batch.record(reader, of: migration, in: section, context: context) }
        }
        return findings
    }

    /// Where the project's settings silence `finding`: a suppression for its file
    /// first, then one for every file.
    private func projectSuppression(of finding: LintFinding) -> String? {
        let covering = suppressions.filter { $0.rules.contains(finding.rule) && $0.applies(toFile: finding.path) }
        return (covering.first { $0.files != nil } ?? covering.first)?.location
    }

    /// `bad-suppression` findings for the rules the project's settings name that do
    /// not exist: reported rather than refused, so that settings written for a newer
    /// MigrationKit, with rules this one lacks, still work here.
    private func settingsProblems() -> [LintFinding] {
        suppressions.flatMap { suppression in
            suppression.rules.filter { !Self.knownRules.contains($0) }.map { unknown in
                LintFinding(rule: LintDirectives.ruleID, severity: .warning, path: suppression.path, line: suppression.line ?? 1,
                            message: "The [lint] settings name \"\(unknown)\"\(suppression.files.map { " for \"\($0)\"" } ?? ""), which is no lint rule, so it silences nothing.",
                            fix: "Correct the name; the rules are \(Self.knownRules.sorted().joined(separator: ", ")).")
            }
        }
    }
}
