import MigrationKit

/// Lint of the migration files a `migrate` is about to apply, on every command line:
/// warnings are printed, errors in up SQL stop the run before anything changes. An
/// error in down SQL is printed as a warning: it fails a rollback, not this run, so it
/// stops `rollback` of its migration and `check` instead (`RollbackLint`).
struct PendingLint: Sendable {
    /// What the linter knows of the SQLite and the database the files will meet, made
    /// where the lint runs.
    private let context: @Sendable () -> LintContext
    /// What the project's settings silence, read where the command started (the lint
    /// may run on another thread).
    private let suppressions: [LintSuppression]

    init(context: LintContext, suppressions: [LintSuppression]) {
        self.context = { context }
        self.suppressions = suppressions
    }

    /// A lint whose context is made by the thread that lints: the linked library's
    /// context opens an in-memory database (SQLite's and OpenSSL's first start, a few
    /// milliseconds), which a lint running beside the key derivation should not make
    /// the command wait for before it starts.
    init(makingContext: @escaping @Sendable () -> LintContext,
                 suppressions: [LintSuppression]) {
        context = makingContext
        self.suppressions = suppressions
    }

    /// - Parameter listedBy: nil when the findings are printed here; otherwise the
    ///   command that shows them (a fleet does not print each database's).
    package func check(_ files: [SQLMigrationFile], reporter: Reporter, listedBy command: String? = nil) throws {
        try report(findings(files), reporter: reporter, listedBy: command)
    }

    /// What lint finds in `files`, printing nothing: work that may run beside another.
    package func findings(_ files: [SQLMigrationFile]) -> LintReport {
        MigrationLinter(context: context(), suppressions: suppressions).report(files)
    }

    /// Prints `report`'s findings as warnings and throws if any stops a migrate (`check`).
    package func report(_ report: LintReport, reporter: Reporter, listedBy command: String? = nil) throws {
        if command == nil {
            LintPrinter.print(report.findings, reporter: reporter, asWarnings: true, downErrorsAre: .warnings)
            LintPrinter.printSuppressed(report.suppressed, reporter: reporter, asNotes: true)
        }
        let errors = report.findings.filter(\.blocksMigrating)
        if let first = errors.first {
            // The sentence names the file and line, as every failure does.
            let found = "Lint found \(errors.count) error\(errors.count == 1 ? "" : "s") in pending migrations, the first at \(first.path):\(first.line) (\(first.rule))"
            let shown = command.map { "; nothing was applied. See them with `\($0)`" } ?? " (listed above); nothing was applied"
            throw CLIError(.lintErrors, found + shown + ". " + LintPrinter.whatToDo)
        }
    }
}

/// Lint of the down SQL a `rollback` is about to run: errors in it stop the rollback
/// before anything changes, as errors in up SQL stop a `migrate`.
enum RollbackLint {
    /// Lints `files` (the migrations the rollback undoes) and throws if their down SQL
    /// has errors; prints the down SQL's findings unless `listedBy` names the command
    /// that shows them (a fleet does not print each database's).
    package static func check(_ files: [SQLMigrationFile], context: LintContext, suppressions: [LintSuppression], reporter: Reporter,
                              listedBy command: String? = nil) throws {
        let report = MigrationLinter(context: context, suppressions: suppressions).report(files)
        let down = report.findings.filter(\.inDownSection)
        if command == nil {
            LintPrinter.print(down, reporter: reporter, asWarnings: true, downErrorsAre: .errors)
            LintPrinter.printSuppressed(report.suppressed.filter(\.finding.inDownSection), reporter: reporter, asNotes: true)
        }
        let errors = down.filter(\.blocksRollingBack)
        if let first = errors.first {
            let found = "Lint found \(errors.count) error\(errors.count == 1 ? "" : "s") in the down SQL this rollback would run, the first at \(first.path):\(first.line) (\(first.rule))"
            let shown = command.map { "; nothing was rolled back. See them with `\($0)`" } ?? " (listed above); nothing was rolled back"
            throw CLIError(.lintErrors, found + shown + ". Fix the down SQL (it is no part of a migration's checksum, so fixing it changes nothing applied), silence one that is intended with `-- migrationkit:nolint RULE` on the line above its statement, or pass --no-lint if you are sure.")
        }
    }
}

/// Lint findings as lines: `path:line: severity[rule]: message`, then the fix.
enum LintPrinter {
    /// How `migrate` and its fleet end a sentence about lint errors.
    static let whatToDo = "Fix them, silence one that is intended with `-- migrationkit:nolint RULE` on the line above its statement (or in migrationkit.toml's [lint] table), or pass --no-lint if you are sure."

    /// What an error in down SQL is to the command printing it.
    enum DownErrors {
        /// Errors: the command runs the down SQL (`rollback`), or judges it (`lint`).
        case errors
        /// Warnings that say what they block: `migrate` runs only the up SQL.
        case warnings
    }

    /// - Parameter asWarnings: print to standard error as warnings (before a migrate),
    ///   rather than as the report itself.
    static func print(_ findings: [LintFinding], reporter: Reporter, asWarnings: Bool, downErrorsAre downErrors: DownErrors = .errors) {
        for finding in findings {
            let deferred = downErrors == .warnings && finding.blocksRollingBack
            let severity = deferred ? LintSeverity.warning : finding.severity
            var line = "\(finding.path):\(finding.line): \(severity)[\(finding.rule)]: \(finding.message)"
            if deferred {
                line += " (An error in down SQL: it blocks `rollback` of this migration and `check`, not `migrate`.)"
            }
            let fix = "  fix: " + advice(for: finding)
            if asWarnings {
                if !reporter.quiet { reporter.console.error(line + "\n" + fix) }
            } else {
                reporter.line(line)
                reporter.line(fix)
            }
        }
    }

    /// Suppressed findings, one line each, saying which suppression silenced them:
    /// printed only with --verbose (`lint` also with --show-suppressed, `asNotes` false,
    /// where they are part of its report).
    static func printSuppressed(_ suppressed: [SuppressedLintFinding], reporter: Reporter, asNotes: Bool) {
        for entry in suppressed {
            let finding = entry.finding
            let line = "\(finding.path):\(finding.line): suppressed \(finding.severity)[\(finding.rule)] by \(entry.suppressedBy): \(finding.message)"
            if asNotes { reporter.note(line) } else { reporter.line(line) }
        }
    }

    /// The rule's fix, then how to keep the SQL as it is: a migration already applied
    /// must not change (an edit of its up SQL makes it `modified`), and a folder adopted
    /// from another tool is mostly such migrations.
    /// A statement that needs what only the app registers gets the command line's option
    /// (`AppExtensionAdvice`) in place of the library's words.
    package static func advice(for finding: LintFinding) -> String {
        let fix = finding.rule == MigrationLinter.appExtensionRuleID
            ? "Run the command with the app's extension loaded (--load-extension PATH[:ENTRY], or `load-extension` in migrationkit.toml), or migrate through the app, which registers it."
            : finding.fix
        guard let comment = finding.silencingComment, !fix.contains(comment) else { return fix }
        if finding.isAboutWholeFile {
            return fix + " To keep the file as it is, silence this with `\(comment)` anywhere in it."
        }
        if finding.inDownSection {
            return fix + " To keep the down SQL as it is, silence this with `\(comment)` on the line above the statement."
        }
        return fix + " To keep the SQL as it is (an applied migration's SQL must not change), silence this with `\(comment)` on the line above the statement."
    }
}
