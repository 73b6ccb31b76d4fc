import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct StatusCommand: UsesProjectConnection, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List every migration as applied or pending, and applied ones with no file.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup var exitCode: StatusExitCodeOption

    func run() throws {
        let reporter = Reporter(output)
        let runner = try CommandSupport.runner(connection.migrations, reporter: reporter)
        let path = try connection.requiredPath()
        guard FileManager.default.fileExists(atPath: path) else {
            // Not created yet: everything is pending, and status creates nothing.
            CommandSupport.announce(path, reporter: reporter, note: "does not exist yet: migrate creates it")
            CommandSupport.warnIfOnCommandLine(connection.key, reporter: reporter)
            let status = MigrationAnalysis(registry: runner.registry, snapshot: LedgerSnapshot(identifiers: [])).status
            try report(status, database: path, exists: false, cipher: nil, reporter: reporter)
            return
        }
        let writer = try CommandSupport.openWriter(connection, access: .inspect, reporter: reporter)
        try report(try runner.migrationStatus(in: writer), database: writer.path, exists: true,
                   cipher: try writer.effectiveCipherSettings(), reporter: reporter)
    }

    private func report(_ status: MigrationStatus, database: String, exists: Bool, cipher: EffectiveCipherSettings?, reporter: Reporter) throws {
        reporter.line("  library: \(SQLCipherLibrary.summary)")
        if exists { reporter.line("  cipher:  \(cipher?.summary ?? "none (plaintext database)")") }
        if exists { reporter.line("  format:  \((cipher?.format ?? .plaintext).rawValue)") }
        let report = StatusReport(status)
        report.print(to: reporter)
        try reporter.document(StatusDocument(
            database: database,
            databaseName: CommandSupport.databaseName,
            exists: exists,
            sqlcipherVersion: SQLCipherLibrary.cipherVersionString,
            sqliteVersion: SQLCipherLibrary.sqliteVersion,
            cipher: cipher,
            format: exists ? (cipher?.format ?? .plaintext) : nil,
            migrations: report.migrations,
            unknownApplied: status.unknownApplied,
            appliedCount: status.applied.count,
            pendingCount: status.pending.count,
            migrateWouldRefuse: status.migrateWouldRefuse))
        if exitCode.isRequested { try report.throwExitCode() }
    }
}

/// What `status --json` prints.
struct StatusDocument: Encodable {
    let database: String
    @AlwaysPresent var databaseName: String?
    /// False when the database file does not exist yet.
    let exists: Bool
    @AlwaysPresent var sqlcipherVersion: String?
    let sqliteVersion: String
    /// The database's effective cipher settings; null for a plaintext database.
    @AlwaysPresent var cipher: EffectiveCipherSettings?
    /// "sqlcipher4", "sqlcipher3", "sqlcipher2", "sqlcipher1", "custom" or "plaintext";
    /// null when the database does not exist yet.
    @AlwaysPresent var format: CipherFormat?
    let migrations: [MigrationStateDocument]
    /// Identifiers in the ledger that no migration file has.
    let unknownApplied: [String]
    let appliedCount: Int
    let pendingCount: Int
    /// Whether a plain `migrate` would refuse this database (`status --exit-code` then
    /// exits 7).
    let migrateWouldRefuse: Bool
}
