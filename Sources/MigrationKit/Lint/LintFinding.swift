/// How much a finding matters.
package enum LintSeverity: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The migration will fail, or break the runner's guarantees: fix it before running.
    case error
    /// The migration runs, but may lose data or surprise: look before running.
    case warning
    /// The migration runs as the runner runs every migration, which is not what the
    /// file asked of another tool (its own transaction): nothing to fix.
    case note

    package var description: String { rawValue }
}

/// One problem the linter found in a migration file, with where it is and what to do.
package struct LintFinding: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Stable kebab-case rule identifier, e.g. `unsupported-sql`, for filters and tools.
    package let rule: String
    /// How much the finding matters: an error to fix, or a warning to look at.
    package let severity: LintSeverity
    /// The migration file.
    package let path: String
    /// 1-based line in the file (not in the section).
    package let line: Int
    /// What is wrong.
    package let message: String
    /// What to do about it.
    package let fix: String
    /// Whether the finding is in a down section (or `.down.sql` file): SQL that runs
    /// when the migration is rolled back, not when it is applied.
    package let inDownSection: Bool

    /// A finding of `rule` at `line` of `path`; `inDownSection` when that line is down SQL.
    package init(rule: String, severity: LintSeverity, path: String, line: Int, message: String, fix: String,
                inDownSection: Bool = false) {
        self.rule = rule
        self.severity = severity
        self.path = path
        self.line = line
        self.message = message
        self.fix = fix
        self.inDownSection = inDownSection
    }

    private enum CodingKeys: String, CodingKey {
        case rule, severity, path, line, message, fix, inDownSection
    }

    /// Reads a finding as `encode(to:)` writes it; one written before findings said
    /// where they are (without `inDownSection`) is up SQL's.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(rule: try container.decode(String.self, forKey: .rule),
                  severity: try container.decode(LintSeverity.self, forKey: .severity),
                  path: try container.decode(String.self, forKey: .path),
                  line: try container.decode(Int.self, forKey: .line),
                  message: try container.decode(String.self, forKey: .message),
                  fix: try container.decode(String.self, forKey: .fix),
                  inDownSection: try container.decodeIfPresent(Bool.self, forKey: .inDownSection) ?? false)
    }

    /// Whether the finding stops `migrate`: an error in up SQL. An error in down SQL
    /// fails only a rollback, so it stops `rollback` of its migration (and `check`,
    /// which rolls every migration back), and `migrate` shows it as a warning.
    package var blocksMigrating: Bool {
        severity == .error && !inDownSection
    }

    /// Whether the finding stops `rollback` of its migration: an error in down SQL.
    package var blocksRollingBack: Bool {
        severity == .error && inDownSection
    }

    /// The comment that silences the finding where it is: `-- migrationkit:nolint RULE`
    /// on the line above its statement, or `-- migrationkit:nolint-file RULE` anywhere in
    /// the file for a finding about the migration as a whole (`missing-down`); nil for
    /// `bad-suppression`, whose findings are fixed rather than silenced.
    package var silencingComment: String? {
        LintDirectives.comment(silencing: rule, fileWide: isAboutWholeFile)
    }

    /// Whether the finding is about the migration's file as a whole (`missing-down`),
    /// not about one statement.
    package var isAboutWholeFile: Bool {
        MigrationLinter.wholeFileRuleIDs.contains(rule)
    }

    /// `path:line: severity[rule]: message Fix: fix`, the shape compilers use, so
    /// editors and CI logs can jump to the line.
    package var description: String {
        "\(path):\(line): \(severity)[\(rule)]: \(message) Fix: \(fix)"
    }
}
