import ArgumentParser
import MigrationKit

/// What `verify` says, whatever the database layer: a line per check, the verdict, and
/// exit code 3 when a check failed.
package struct VerificationOutput {
    package let report: VerificationReport
    package let database: String
    /// The project file's `[databases.NAME]` that chose the database, if any.
    package let databaseName: String?

    package init(_ report: VerificationReport, database: String, databaseName: String? = nil) {
        self.report = report
        self.database = database
        self.databaseName = databaseName
    }

    package func print(to reporter: Reporter) throws {
        printChecks(to: reporter)
        let document = self.document
        try reporter.document(document)
        try Self.end(document, reporter: reporter)
    }

    /// A line per check, and the verdict.
    package func printChecks(to reporter: Reporter) {
        for check in report.checks {
            reporter.line("\(!check.applies ? "n/a   " : check.passed ? "ok    " : "FAILED") \(check.name): \(check.detail)")
        }
        reporter.line(report.passed ? "Verification passed." : "Verification failed: \(report.failures.count) problem\(report.failures.count == 1 ? "" : "s").")
    }

    /// What `--json` prints.
    package var document: VerifyDocument {
        VerifyDocument(
            database: database,
            databaseName: databaseName,
            passed: report.passed,
            checks: report.checks.map { .init(name: $0.name, passed: $0.passed, applies: $0.applies, detail: $0.detail) })
    }

    /// Exit code 3 when a check failed; with --quiet, the first failure on standard
    /// error, as nothing else said it.
    package static func end(_ document: VerifyDocument, reporter: Reporter) throws {
        guard let failed = document.checks.first(where: { !$0.passed }) else { return }
        if reporter.quiet { reporter.console.error("verify: \(failed.detail)") }
        throw ExitCodeDecision.ending(with: .verificationFailed)
    }

    /// A failed verification in one sentence naming each failed check, for a fleet's
    /// table; nil when it passed.
    package static func failure(in document: VerifyDocument) -> ErrorPresentation? {
        let failed = document.checks.filter { !$0.passed }
        guard !failed.isEmpty else { return nil }
        return ErrorPresentation(kind: "verificationFailed",
                                 message: "verification failed: " + failed.map { "\($0.name): \($0.detail)" }.joined(separator: "; "),
                                 exitCode: .verificationFailed)
    }
}

/// What `verify --json` prints.
package struct VerifyDocument: Encodable {
    package struct Check: Encodable {
        package let name: String
        /// True for a check that does not apply, which found nothing wrong.
        package let passed: Bool
        package let applies: Bool
        package let detail: String

        package init(name: String, passed: Bool, applies: Bool, detail: String) {
            self.name = name
            self.passed = passed
            self.applies = applies
            self.detail = detail
        }
    }
    package let database: String
    @AlwaysPresent package var databaseName: String?
    package let passed: Bool
    package let checks: [Check]

    package init(database: String, databaseName: String?, passed: Bool, checks: [Check]) {
        self.database = database
        self.databaseName = databaseName
        self.passed = passed
        self.checks = checks
    }
}
