import ArgumentParser
import MigrationKit
import MigrationKitCommands
import MigrationKitGRDB

struct GRDBVerifyCommand: ParsableCommand, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the database's integrity, foreign keys and required indexes without migrating.")

    @OptionGroup var connection: GRDBConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("require-index"), help: ArgumentHelp("Fail unless this index exists (repeatable).", valueName: "table:index"))
    var requiredIndexes: [RequiredIndexSpec] = []

    func run() throws {
        let reporter = Reporter(output)
        // Verification needs no migration files; a Swift host's own checks still apply.
        var runner = try GRDBCLIContext.host.runner ?? GRDBMigrationRunner(steps: [])
        runner.verifier.requiredIndexes += requiredIndexes
        let database = try GRDBDatabaseOpener.open(connection, access: .inspect, reporter: reporter)
        try VerificationOutput(try runner.verificationReport(in: database.writer), database: database.path).print(to: reporter)
    }
}
