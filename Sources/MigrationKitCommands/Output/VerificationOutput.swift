import ArgumentParser
import MigrationKit

/// What `verify` says, whatever the database layer: a line per check, the verdict, and
/// exit code 3 when a check failed.
package struct VerificationOutput {
    package let report: VerificationReport
    package let database: String

    package init(_ report: VerificationReport, database: String) {
        self.report = report
        self.database = database
    }

    package func print(to reporter: Reporter) throws {
        for check in report.checks {
            reporter.line("\(check.passed ? "ok    " : "FAILED") \(check.name): \(check.detail)")
        }
        reporter.line(report.passed ? "Verification passed." : "Verification failed: \(report.failures.count) problem\(report.failures.count == 1 ? "" : "s").")
        try reporter.document(VerifyDocument(
            database: database,
            passed: report.passed,
            checks: report.checks.map { .init(name: $0.name, passed: $0.passed, detail: $0.detail) }))
        if !report.passed {
            if reporter.quiet, let first = report.failures.first { Console.error("verify: \(first.detail)") }
            throw ExitCode(CLIExitCode.verificationFailed.rawValue)
        }
    }

}

/// What `verify --json` prints.
package struct VerifyDocument: Encodable {
    package struct Check: Encodable {
        package let name: String
        package let passed: Bool
        package let detail: String

        package init(name: String, passed: Bool, detail: String) {
            self.name = name
            self.passed = passed
            self.detail = detail
        }
    }
    package let database: String
    package let passed: Bool
    package let checks: [Check]

    package init(database: String, passed: Bool, checks: [Check]) {
        self.database = database
        self.passed = passed
        self.checks = checks
    }
}
