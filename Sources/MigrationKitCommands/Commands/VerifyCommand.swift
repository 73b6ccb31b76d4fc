import ArgumentParser
import MigrationKit
import MigrationKitFiles

struct VerifyCommand: UsesProjectConnection, FleetCommand {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the database's integrity, foreign keys and required indexes without migrating.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") package var fleet: FleetOptions

    @Option(name: .customLong("require-index"), help: ArgumentHelp("Fail unless this index exists (repeatable).", valueName: "table:index"))
    var requiredIndexes: [RequiredIndexSpec] = []

    var fleetVerb: String { "Verifying" }

    package func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> VerifyDocument {
        // Verification needs no migration files; a Swift host's own checks still apply.
        let migrations = try world.layer.hostMigrationsOrNone(requiredIndexes: requiredIndexes)
        let database = try MigrationSession.open(connection, migrations: migrations, access: .inspect, reporter: reporter, in: world)
        let report = try database.verificationReport()
        // A check cut short by Ctrl-C is not a damaged database.
        try Interruption.check()
        let output = VerificationOutput(report, database: database.path, databaseName: world.databaseName)
        output.printChecks(to: reporter)
        return output.document
    }

    package func finishAlone(_ report: VerifyDocument, reporter: Reporter) throws {
        try VerificationOutput.end(report, reporter: reporter)
    }

    package func failure(in report: VerifyDocument) -> ErrorPresentation? {
        VerificationOutput.failure(in: report)
    }

    package func fleetResult(_ report: VerifyDocument) -> String {
        "passed (\(report.checks.filter(\.applies).count) checks)"
    }
}
