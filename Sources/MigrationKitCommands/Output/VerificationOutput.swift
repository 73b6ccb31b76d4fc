import ArgumentParser
import MigrationKit

/// What `verify` says, whatever the database layer: a line per check, the verdict, and
/// exit code 3 when a check failed. A check that could not run for want of what only the
/// app registers (its tokenizer, a function, a collation) is no failure: the verdict
/// names what was not checked and how to check it (`AppExtensionAdvice`), and the code is
/// the one `ExitCodeDecision.exitCode(forChecks:)` gives.
struct VerificationOutput {
    package let report: VerificationReport
    package let database: String
    /// The project file's `[databases.NAME]` that chose the database, if any.
    package let databaseName: String?
    /// How to bring what the app registers to this command line (`--load-extension`), for
    /// the verdict on checks that could not run without it.
    package let advice: AppExtensionAdvice

    init(_ report: VerificationReport, database: String, databaseName: String? = nil, advice: AppExtensionAdvice = AppExtensionAdvice()) {
        self.report = report
        self.database = database
        self.databaseName = databaseName
        self.advice = advice
    }

    func print(to reporter: Reporter) throws {
        printChecks(to: reporter)
        let document = self.document
        try reporter.document(document)
        try Self.end(document, reporter: reporter)
    }

    /// A line per check, and the verdict.
    func printChecks(to reporter: Reporter) {
        for check in report.checks {
            reporter.line("\(!check.ran ? "n/a   " : check.passed ? "ok    " : "FAILED") \(check.name): \(check.detail)")
        }
        let unchecked = report.notCheckedFully
        guard report.passed else {
            reporter.line("Verification failed: \(report.failures.count) problem\(report.failures.count == 1 ? "" : "s").")
            return
        }
        guard !unchecked.isEmpty else {
            reporter.line("Verification passed.")
            return
        }
        reporter.line("Verification passed for everything that could be checked; \(advice.notChecked(unchecked.count, needing: report.unmetNeeds)).")
    }

    /// What `--json` prints.
    package var document: VerifyDocument {
        VerifyDocument(
            database: database,
            databaseName: databaseName,
            passed: report.passed,
            checks: report.checks.map { check in
                .init(name: check.name, passed: check.passed, applies: check.applies, detail: check.detail,
                      notChecked: check.unmetNeeds.map { .init(kind: $0.kind.rawValue, name: $0.name) })
            })
    }

    /// Exit code 3 when a check failed; with --quiet, the first failure on standard
    /// error, as nothing else said it. Checks that could not run are no failure
    /// (`ExitCodeDecision.exitCode(forChecks:)`).
    static func end(_ document: VerifyDocument, reporter: Reporter) throws {
        let failed = document.checks.first(where: { !$0.passed })
        let code = ExitCodeDecision.exitCode(forChecks: failed == nil ? .passedWhatCouldRun : .failed)
        guard code != .success else { return }
        if reporter.quiet, let failed { reporter.console.error("verify: \(failed.detail)") }
        throw ExitCode(code.rawValue)
    }

    /// A failed verification in one sentence naming each failed check, for a fleet's
    /// table; nil when it passed.
    package static func failure(in document: VerifyDocument) -> ErrorPresentation? {
        let failed = document.checks.filter { !$0.passed }
        guard !failed.isEmpty else { return nil }
        return ErrorPresentation(row: ExitCodeDecision.row(for: .verificationFailed),
                                 message: "verification failed: " + failed.map { "\($0.name): \($0.detail)" }.joined(separator: "; "))
    }
}

/// What `verify --json` prints.
struct VerifyDocument: Encodable {
    struct Check: Encodable {
        package let name: String
        /// True for a check that does not apply, which found nothing wrong.
        let passed: Bool
        package let applies: Bool
        let detail: String
        /// What only the app registers that the check needed and did not have; empty
        /// when it ran whole.
        package let notChecked: [Need]

        struct Need: Encodable {
            /// `tokenizer`, `function`, `collation` or `module`.
            package let kind: String
            package let name: String
        }

        init(name: String, passed: Bool, applies: Bool, detail: String, notChecked: [Need] = []) {
            self.name = name
            self.passed = passed
            self.applies = applies
            self.detail = detail
            self.notChecked = notChecked
        }
    }
    package let database: String
    @AlwaysPresent package var databaseName: String?
    let passed: Bool
    let checks: [Check]

    init(database: String, databaseName: String?, passed: Bool, checks: [Check]) {
        self.database = database
        self.databaseName = databaseName
        self.passed = passed
        self.checks = checks
    }
}
