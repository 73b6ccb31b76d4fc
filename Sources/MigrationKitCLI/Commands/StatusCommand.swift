import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitSQLCipher

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List every migration as applied or pending, and applied ones with no file.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Flag(name: .customLong("exit-code"), help: "Exit with code \(CLIExitCode.pendingMigrations.rawValue) when migrations are pending (for deploy scripts).")
    var exitCode = false

    func run() throws {
        let reporter = Reporter(output)
        let runner = try CommandSupport.runner(connection.migrations)
        let path = try connection.requiredPath()
        guard FileManager.default.fileExists(atPath: path) else {
            // Not created yet: everything is pending, and status creates nothing.
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
        reporter.line(exists ? database : "\(database) (does not exist yet: migrate creates it)")
        reporter.line("  library: \(SQLCipherLibrary.summary)")
        if exists { reporter.line("  cipher:  \(cipher?.summary ?? "none (plaintext database)")") }
        if exists { reporter.line("  format:  \((cipher?.format ?? .plaintext).rawValue)") }
        for entry in status.entries {
            let label: String
            switch entry.state {
            case .applied: label = "applied "
            case .pending: label = "pending "
            case .modified: label = "modified"
            }
            reporter.line("\(label) \(entry.identifier)\(entry.state == .modified ? " (edited since it was applied)" : "")")
        }
        for identifier in status.unknownApplied {
            reporter.line("unknown  \(identifier) (applied, but no such migration here: migrated by a newer version)")
        }
        reporter.line("\(status.applied.count) applied, \(status.pending.count) pending"
            + (status.modified.isEmpty ? "" : ", \(status.modified.count) modified")
            + (status.unknownApplied.isEmpty ? "" : ", \(status.unknownApplied.count) unknown") + ".")
        try reporter.document(StatusDocument(
            database: database,
            exists: exists,
            sqlcipherVersion: SQLCipherLibrary.cipherVersionString,
            sqliteVersion: SQLCipherLibrary.sqliteVersion,
            cipher: cipher,
            format: exists ? (cipher?.format ?? .plaintext) : nil,
            migrations: status.entries.map { .init(identifier: $0.identifier, state: $0.state.rawValue) },
            unknownApplied: status.unknownApplied,
            appliedCount: status.applied.count,
            pendingCount: status.pending.count))
        if exitCode && !status.pending.isEmpty {
            throw ExitCode(CLIExitCode.pendingMigrations.rawValue)
        }
    }
}

/// What `status --json` prints.
struct StatusDocument: Encodable {
    struct Migration: Encodable {
        let identifier: String
        /// "applied", "pending" or "modified".
        let state: String
    }
    let database: String
    /// False when the database file does not exist yet.
    let exists: Bool
    let sqlcipherVersion: String?
    let sqliteVersion: String
    /// The database's effective cipher settings; null for a plaintext database.
    let cipher: EffectiveCipherSettings?
    /// "sqlcipher4", "sqlcipher3", "sqlcipher2", "sqlcipher1", "custom" or "plaintext";
    /// null when the database does not exist yet.
    let format: CipherFormat?
    let migrations: [Migration]
    /// Identifiers in the ledger that no migration file has.
    let unknownApplied: [String]
    let appliedCount: Int
    let pendingCount: Int
}
