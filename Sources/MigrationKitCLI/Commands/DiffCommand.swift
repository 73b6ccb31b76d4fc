import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

/// `diff`: drift. Compares the database's schema with what its applied migrations make
/// on an empty scratch database, for deploy scripts and CI: exit 0 when they agree,
/// exit 3 with each difference when not. Reads the database only.
struct DiffCommand: UsesProjectConnection, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare the database's schema with what its applied migrations make (drift): exit 0 when they agree, 3 when not.",
        discussion: "The applied migrations run on an empty scratch database (encrypted with a random key, deleted afterwards); the database itself is only read. Objects are compared in their canonical SQL (as schema-dump prints it), so spelling and spacing never count.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let reporter = Reporter(output)
        let runner = try CommandSupport.runner(connection.migrations, reporter: reporter)
        let writer = try CommandSupport.openWriter(connection, access: .inspect, reporter: reporter)
        let report: SchemaDrift.Report
        do {
            report = try SchemaDrift(runner: runner).check(writer)
        } catch let refusal as SchemaDrift.Refusal {
            throw CLIError(.refused, Self.sentence(for: refusal, database: writer.path))
        }
        try Interruption.check()
        for identifier in report.modified {
            reporter.warning("\(identifier) was edited after it was applied; the schema it is compared with comes from the file as it is now.")
        }
        let made = "what its \(report.applied.count) applied migration\(report.applied.count == 1 ? "" : "s") make\(report.applied.count == 1 ? "s" : "")"
        if report.differences.isEmpty {
            reporter.line("No drift: the schema is \(made).")
        } else {
            reporter.line("Drift: the schema differs from \(made); put each change in a migration, or undo it:")
            for difference in report.differences { reporter.line("  \(difference.summary)") }
        }
        try reporter.document(DiffDocument(database: writer.path, databaseName: CommandSupport.databaseName,
                                           applied: report.applied, drift: !report.differences.isEmpty,
                                           differences: report.differences))
        // The differences are the message (and the JSON document); the code says drift.
        if !report.differences.isEmpty { throw ExitCode(CLIExitCode.verificationFailed.rawValue) }
    }

    private static func sentence(for refusal: SchemaDrift.Refusal, database: String) -> String {
        switch refusal {
        case .unknownApplied(let identifiers):
            return "\(database) has applied migrations that --migrations does not have (\(identifiers.joined(separator: ", "))), so their schema cannot be made; point --migrations at the folder that migrated it."
        case .pendingBeforeLatestApplied(let pending, let latest):
            return "\(database) has migrations before its latest applied one (\(latest)) that are not applied (\(pending.joined(separator: ", "))), so the migrations in order do not make it; apply them (migrate --allow-out-of-order) and run diff again."
        }
    }
}

/// What `diff --json` prints.
struct DiffDocument: Encodable {
    let database: String
    @AlwaysPresent var databaseName: String?
    /// The applied migrations the expected schema was made from.
    let applied: [String]
    let drift: Bool
    let differences: [SchemaDifference]
}
