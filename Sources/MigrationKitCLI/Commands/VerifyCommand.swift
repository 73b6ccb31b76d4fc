import ArgumentParser
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct VerifyCommand: UsesProjectConnection, PrintsOutput {
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
        // A check cut short by Ctrl-C is not a damaged database.
        try Interruption.check()
        try VerificationOutput(report, database: writer.path, databaseName: CommandSupport.databaseName).print(to: reporter)
    }
}
