/// A migration without a down section cannot be rolled back.
struct MissingDownRule: LintRule {
    static let id = "missing-down"

    func findings(in file: SQLMigrationFile, context: LintContext) -> [LintFinding] {
        guard file.down == nil else { return [] }
        let line: Int
        let fix: String
        switch file.form {
        case .sections:
            // The `-- migrate:up` line, just above the up section.
            line = max(1, file.up.startLine - 1)
            fix = "Add a `-- migrate:down` section that undoes the up section, or accept that this migration cannot be rolled back."
        case .upDownFiles:
            line = 1
            fix = "Add a \(file.identifier).down.sql file that undoes this one, or accept that this migration cannot be rolled back."
        }
        return [LintFinding(rule: Self.id, severity: .warning, path: file.path, line: line,
                            message: "Migration \"\(file.identifier)\" has no down section, so it cannot be rolled back.",
                            fix: fix)]
    }
}
