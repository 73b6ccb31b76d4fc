/// One check the linter runs. Each rule is a small type so that adding one means
/// adding a file and listing it in `MigrationLinter.rules`.
protocol LintRule: Sendable {
    /// The rule's stable kebab-case identifier (`LintFinding.rule`), which suppressions name.
    static var id: String { get }

    /// Whether the rule also checks down sections. Only rules about whether SQL can
    /// run at all do: data-loss rules depend on the database as it is now, which is
    /// not the database a later rollback will meet.
    var checksDownSections: Bool { get }

    /// Whether the rule only speaks when no other rule found an error in the statement,
    /// whose finding it would repeat in other words (SQLite cannot parse RETURNING on
    /// 3.15.2, which `unsupported-sql` already says better).
    var isFallback: Bool { get }

    /// Whether the rule judges a migration as a whole (`findings(in file:)`) rather than
    /// one statement, so its findings are silenced for the whole file
    /// (`-- migrationkit:nolint-file`).
    var judgesWholeFiles: Bool { get }

    /// Findings for one statement, before the batch records it.
    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding]

    /// Findings about a migration file as a whole.
    func findings(in file: SQLMigrationFile, context: LintContext) -> [LintFinding]
}

extension LintRule {
    var checksDownSections: Bool { false }

    var isFallback: Bool { false }

    var judgesWholeFiles: Bool { false }

    func findings(in statement: StatementReader, _ scope: LintScope) -> [LintFinding] { [] }

    func findings(in file: SQLMigrationFile, context: LintContext) -> [LintFinding] { [] }
}

/// Where a statement sits and what is known around it.
struct LintScope {
    let section: SQLSection
    /// Whether `section` is a down section, which runs on rollback.
    let isDown: Bool
    let context: LintContext
    /// The batch as it stands before this statement.
    let batch: BatchSchema
    /// The migration's declared compatibility with older releases
    /// (`-- migrate:compatible`), nil when it declares none.
    var compatibility: MigrationCompatibility? = nil

    /// A finding placed on the file line of `token` (the statement's first token when
    /// nil or out of range).
    func finding(_ rule: String, _ severity: LintSeverity, at token: SQLToken?, in statement: StatementReader,
                 message: String, fix: String) -> LintFinding {
        let sectionLine = token?.line ?? statement.statement.startLine
        return LintFinding(rule: rule, severity: severity, path: section.path,
                           line: section.fileLine(forSectionLine: sectionLine), message: message, fix: fix, inDownSection: isDown)
    }
}
