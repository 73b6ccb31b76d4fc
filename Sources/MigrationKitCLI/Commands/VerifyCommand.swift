import ArgumentParser
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct VerifyCommand: UsesProjectConnection, FleetCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the database's integrity, foreign keys and required indexes without migrating.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") var fleet: FleetOptions

    @Option(name: .customLong("require-index"), help: ArgumentHelp("Fail unless this index exists (repeatable).", valueName: "table:index"))
    var requiredIndexes: [RequiredIndexSpec] = []

    var fleetVerb: String { "Verifying" }

    func runOnDatabase(reporter: Reporter) throws -> VerifyDocument {
        let verifier = SQLCipherMigrationVerifier(requiredIndexes: requiredIndexes)
        // Verification needs no migration files; a Swift host's own checks still apply.
        var runner = try CLIContext.host.runner ?? SQLCipherMigrationRunner(steps: [])
        runner.verifier.requiredIndexes += verifier.requiredIndexes
        let writer = try CommandSupport.openWriter(connection, access: .inspect, reporter: reporter)
        let report = try runner.verificationReport(in: writer)
        // A check cut short by Ctrl-C is not a damaged database.
        try Interruption.check()
        let output = VerificationOutput(report, database: writer.path, databaseName: CommandSupport.databaseName)
        output.printChecks(to: reporter)
        return output.document
    }

    func finishAlone(_ report: VerifyDocument, reporter: Reporter) throws {
        try VerificationOutput.end(report, reporter: reporter)
    }

    func failure(in report: VerifyDocument) -> ErrorPresentation? {
        VerificationOutput.failure(in: report)
    }

    func fleetResult(_ report: VerifyDocument) -> String {
        "passed (\(report.checks.filter(\.applies).count) checks)"
    }
}
