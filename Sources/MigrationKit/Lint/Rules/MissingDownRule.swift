/// A migration without a down section cannot be rolled back; neither can one whose
/// down section holds no statement (blank, or comments alone), which is no down section
/// (`SQLMigrationFile.emptyDown`).
struct MissingDownRule: LintRule {
    static let id = "missing-down"

    var judgesWholeFiles: Bool { true }

    func findings(in file: SQLMigrationFile, context: LintContext) -> [LintFinding] {
        guard file.down == nil else { return [] }
        if let empty = file.emptyDown {
            // The `-- migrate:down` line just above the section, or the .down.sql file's first line.
            let line = file.form == .sections ? max(1, empty.startLine - 1) : 1
            return [LintFinding(rule: Self.id, severity: .warning, path: empty.path, line: line,
                                message: "Migration \"\(file.identifier)\" has no down section: its down \(file.form == .sections ? "section" : "file") holds no statement (only blanks or comments), so it cannot be rolled back.",
                                fix: "Write the SQL that undoes the up section, or `SELECT 1;` if there is nothing to undo (down SQL is no part of a migration's checksum, so a migration already applied may get it too).")]
        }
        let line: Int
        let fix: String
        switch file.form {
        case .sections:
            // The `-- migrate:up` line, just above the up section.
            line = max(1, file.up.startLine - 1)
            fix = "Add a `-- migrate:down` section that undoes the up section (down SQL is no part of a migration's checksum, so a migration already applied may get one too)."
        case .upDownFiles:
            line = 1
            fix = "Add a \(file.identifier).down.sql file that undoes this one (down SQL is no part of a migration's checksum, so a migration already applied may get one too)."
        }
        return [LintFinding(rule: Self.id, severity: .warning, path: file.path, line: line,
                            message: "Migration \"\(file.identifier)\" has no down section, so it cannot be rolled back.",
                            fix: fix)]
    }
}
