import MigrationKit

/// Lint of the migration files a `migrate` is about to apply, on every command line:
/// warnings are printed, errors stop the run before anything changes.
package struct PendingLint: Sendable {
    /// What the linter knows of the SQLite and the database the files will meet, made
    /// where the lint runs.
    private let context: @Sendable () -> LintContext

    package init(context: LintContext) {
        self.context = { context }
    }

    /// A lint whose context is made by the thread that lints: the linked library's
    /// context opens an in-memory database (SQLite's and OpenSSL's first start, a few
    /// milliseconds), which a lint running beside the key derivation should not make
    /// the command wait for before it starts.
    package init(makingContext: @escaping @Sendable () -> LintContext) {
        context = makingContext
    }

    /// - Parameter listedBy: nil when the findings are printed here; otherwise the
    ///   command that shows them (a fleet does not print each database's).
    package func check(_ files: [SQLMigrationFile], reporter: Reporter, listedBy command: String? = nil) throws {
        try report(findings(files), reporter: reporter, listedBy: command)
    }

    /// What lint finds in `files`, printing nothing: work that may run beside another.
    package func findings(_ files: [SQLMigrationFile]) -> [LintFinding] {
        MigrationLinter(context: context()).lint(files)
    }

    /// Prints `findings` as warnings and throws if any is an error (`check`).
    package func report(_ findings: [LintFinding], reporter: Reporter, listedBy command: String? = nil) throws {
        if command == nil { LintPrinter.print(findings, reporter: reporter, asWarnings: true) }
        let errors = findings.filter { $0.severity == .error }
        if let first = errors.first {
            // The sentence names the file and line, as every failure does.
            let found = "Lint found \(errors.count) error\(errors.count == 1 ? "" : "s") in pending migrations, the first at \(first.path):\(first.line) (\(first.rule))"
            let shown = command.map { "; nothing was applied. See them with `\($0)`" } ?? " (listed above); nothing was applied"
            throw CLIError(.lintErrors, found + shown + ". Fix them, or pass --no-lint if you are sure.")
        }
    }
}

/// Lint findings as lines: `path:line: severity[rule]: message`, then the fix.
package enum LintPrinter {
    /// - Parameter asWarnings: print to standard error as warnings (before a migrate),
    ///   rather than as the report itself.
    package static func print(_ findings: [LintFinding], reporter: Reporter, asWarnings: Bool) {
        for finding in findings {
            let line = "\(finding.path):\(finding.line): \(finding.severity)[\(finding.rule)]: \(finding.message)"
            if asWarnings {
                if !reporter.quiet { Console.error(line + "\n  fix: " + finding.fix) }
            } else {
                reporter.line(line)
                reporter.line("  fix: " + finding.fix)
            }
        }
    }
}
