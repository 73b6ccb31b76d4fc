import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitFiles

package struct BaselineCommand: UsesProjectConnection, FleetCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Record migrations up to --to as applied without running them, for a database made before MigrationKit managed it.")

    @OptionGroup package var connection: ConnectionOptions
    @OptionGroup package var output: OutputOptions
    @OptionGroup(title: "Fleet options") package var fleet: FleetOptions

    @Option(name: .customLong("to"), help: ArgumentHelp("The last migration the database already reflects.", valueName: "id"))
    package var target: String

    package var fleetVerb: String { "Baselining" }

    package func runOnDatabase(reporter: Reporter) throws -> BaselineDocument {
        let migrations = try CommandSupport.migrations(connection.migrations, reporter: reporter)
        let database = try CommandSupport.openDatabase(connection, migrations: migrations, access: .change, reporter: reporter)
        let recorded = try database.baseline(upTo: target)
        for identifier in recorded { reporter.line("Baselined \(identifier) (recorded as applied, not run)") }
        reporter.line(recorded.isEmpty
            ? "Nothing to record: every migration up to \(target) is already applied."
            : "Recorded \(recorded.count) migration\(recorded.count == 1 ? "" : "s") as applied; `migrate` will apply only later ones.")
        return BaselineDocument(database: database.path, databaseName: CommandSupport.databaseName, baselined: recorded)
    }

    package func fleetResult(_ report: BaselineDocument) -> String {
        report.baselined.isEmpty ? "nothing to record" : "recorded \(report.baselined.count) migration\(report.baselined.count == 1 ? "" : "s") as applied"
    }
}

package struct BaselineDocument: Encodable {
    package let database: String
    @AlwaysPresent package var databaseName: String?
    package let baselined: [String]
}
