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
        let checksumNoteOrAcceptance = " (down SQL is no part of a migration's checksum, so a migration already applied may get one too), or accept that this migration cannot be rolled back."
        switch file.form {
        case .sections:
            // The `-- migrate:up` (or `-- +goose Up`) line, just above the up section.
            line = max(1, file.up.startLine - 1)
            fix = file.layout == .goose ? "Add a `-- +goose Down` section that undoes the up section" + checksumNoteOrAcceptance
                : "Add a `-- migrate:down` section that undoes the up section" + checksumNoteOrAcceptance
        case .upDownFiles:
            line = 1
            fix = Self.downFileAdvice(for: file) + checksumNoteOrAcceptance
        }
        return [LintFinding(rule: Self.id, severity: .warning, path: file.path, line: line,
                            message: "Migration \"\(file.identifier)\" has no down section, so it cannot be rolled back.",
                            fix: fix)]
    }

    /// Where the down SQL of a migration whose up SQL is a file of its own goes, in its
    /// layout.
    private static func downFileAdvice(for file: SQLMigrationFile) -> String {
        switch file.layout {
        case .flyway:
            let name = file.identifier.hasPrefix("V") ? "U" + file.identifier.dropFirst() : file.identifier
            return "Add an undo file, \(name).sql, that undoes this one"
        case .diesel:
            return "Add a down.sql beside this up.sql that undoes it"
        case .sqlx where !file.up.path.hasSuffix(".up.sql"):
            return "Rename this file to \(file.identifier).up.sql (the migration keeps its identifier) and add a \(file.identifier).down.sql that undoes it"
        default:
            return "Add a \(file.identifier).down.sql file that undoes this one"
        }
    }
}
