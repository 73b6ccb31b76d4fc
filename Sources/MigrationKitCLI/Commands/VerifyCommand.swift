import ArgumentParser
import MigrationKit
import MigrationKitSQLCipher

struct VerifyCommand: UsesProjectConnection {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the database's integrity, foreign keys and required indexes without migrating.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("require-index"), help: ArgumentHelp("Fail unless this index exists (repeatable).", valueName: "table:index"))
    var requiredIndexes: [RequiredIndexSpec] = []

    func run() throws {
        let reporter = Reporter(output)
        let verifier = SQLCipherMigrationVerifier(requiredIndexes: requiredIndexes)
        // Verification needs no migration files; a Swift host's own checks still apply.
        var runner = try CLIContext.host.runner ?? SQLCipherMigrationRunner(steps: [])
        runner.verifier.requiredIndexes += verifier.requiredIndexes
        let writer = try CommandSupport.openWriter(connection, access: .inspect, reporter: reporter)
        let report = try runner.verificationReport(in: writer)
        for check in report.checks {
            reporter.line("\(check.passed ? "ok    " : "FAILED") \(check.name): \(check.detail)")
        }
        reporter.line(report.passed ? "Verification passed." : "Verification failed: \(report.failures.count) problem\(report.failures.count == 1 ? "" : "s").")
        try reporter.document(VerifyDocument(
            database: writer.path,
            passed: report.passed,
            checks: report.checks.map { .init(name: $0.name, passed: $0.passed, detail: $0.detail) }))
        if !report.passed {
            if output.quiet, let first = report.failures.first { Console.error("verify: \(first.detail)") }
            throw ExitCode(CLIExitCode.verificationFailed.rawValue)
        }
    }
}

struct VerifyDocument: Encodable {
    struct Check: Encodable {
        let name: String
        let passed: Bool
        let detail: String
    }
    let database: String
    let passed: Bool
    let checks: [Check]
}
