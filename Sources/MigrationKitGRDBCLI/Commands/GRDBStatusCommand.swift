import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands

struct GRDBStatusCommand: ParsableCommand, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List every migration as applied or pending, and applied ones with no migration here.")

    @OptionGroup var connection: GRDBConnectionOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup var exitCode: StatusExitCodeOption

    func run() throws {
        let reporter = Reporter(output)
        let runner = try GRDBCommandSupport.runner(connection.migrations, reporter: reporter)
        let path = try connection.requiredPath()
        let exists = FileManager.default.fileExists(atPath: path)
        // Not created yet: everything is pending, and status creates nothing.
        let database = exists ? try GRDBDatabaseOpener.open(connection, access: .inspect, reporter: reporter) : nil
        let status = try database.map { try runner.migrationStatus(in: $0.writer) }
            ?? MigrationAnalysis(registry: runner.registry, snapshot: LedgerSnapshot(identifiers: [])).status
        reporter.line(exists ? path : "\(path) (does not exist yet: migrate creates it)")
        let sqliteVersion = try GRDBCommandSupport.linkedSQLiteVersion()
        let library = try GRDBCommandSupport.linkedSQLCipherVersion().map { "SQLCipher \($0) (SQLite \(sqliteVersion))" } ?? "SQLite \(sqliteVersion)"
        reporter.line("  library: \(library), through GRDB")
        if let database { reporter.line("  format:  \(database.formatDescription)") }
        let report = StatusReport(status)
        report.print(to: reporter)
        try reporter.document(GRDBStatusDocument(
            database: path, exists: exists, sqliteVersion: sqliteVersion,
            migrations: report.migrations, unknownApplied: status.unknownApplied,
            appliedCount: status.applied.count, pendingCount: status.pending.count,
            migrateWouldRefuse: status.migrateWouldRefuse))
        if exitCode.isRequested { try report.throwExitCode() }
    }
}

/// What `status --json` prints over GRDB: the `migrationkit` tool's document without
/// its cipher fields.
struct GRDBStatusDocument: Encodable {
    let database: String
    /// False when the database file does not exist yet.
    let exists: Bool
    let sqliteVersion: String
    let migrations: [MigrationStateDocument]
    /// Identifiers in the ledger that no migration here has.
    let unknownApplied: [String]
    let appliedCount: Int
    let pendingCount: Int
    /// Whether a plain `migrate` would refuse this database (`status --exit-code` then
    /// exits 7).
    let migrateWouldRefuse: Bool
}
