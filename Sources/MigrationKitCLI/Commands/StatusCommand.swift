import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitSQLCipher

struct StatusCommand: UsesProjectConnection {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List every migration as applied or pending, and applied ones with no file.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Flag(name: .customLong("exit-code"), help: "Exit with code \(CLIExitCode.refused.rawValue) when migrate would refuse the database, \(CLIExitCode.pendingMigrations.rawValue) when migrations are pending (for deploy scripts).")
    var exitCode = false

    func run() throws {
        let reporter = Reporter(output)
        let runner = try CommandSupport.runner(connection.migrations, reporter: reporter)
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
            reporter.line(Self.line(for: entry, in: status))
        }
        for identifier in status.unknownApplied {
            reporter.line("unknown  \(identifier) (applied, but no such migration here: migrated by a newer version)")
        }
        reporter.line("\(status.applied.count) applied, \(status.pending.count) pending"
            + (status.modified.isEmpty ? "" : ", \(status.modified.count) modified")
            + (status.outOfOrder.isEmpty ? "" : ", \(status.outOfOrder.count) out of order")
            + (status.partlyMerged.isEmpty ? "" : ", \(status.partlyMerged.count) partly merged")
            + (status.unknownApplied.isEmpty ? "" : ", \(status.unknownApplied.count) unknown") + "."
            + (status.migrateWouldRefuse ? " migrate would refuse this database until that is resolved." : ""))
        try reporter.document(StatusDocument(
            database: database,
            exists: exists,
            sqlcipherVersion: SQLCipherLibrary.cipherVersionString,
            sqliteVersion: SQLCipherLibrary.sqliteVersion,
            cipher: cipher,
            format: exists ? (cipher?.format ?? .plaintext) : nil,
            migrations: status.entries.map {
                .init(identifier: $0.identifier, state: $0.state.rawValue,
                      mergedApplied: $0.state == .partlyMerged ? $0.mergedApplied : nil,
                      mergedMissing: $0.state == .partlyMerged ? $0.mergedMissing : nil)
            },
            unknownApplied: status.unknownApplied,
            appliedCount: status.applied.count,
            pendingCount: status.pending.count,
            migrateWouldRefuse: status.migrateWouldRefuse))
        if exitCode {
            // A deploy script learns both what migrate would do and whether it would refuse.
            if status.migrateWouldRefuse { throw ExitCode(CLIExitCode.refused.rawValue) }
            if !status.pending.isEmpty { throw ExitCode(CLIExitCode.pendingMigrations.rawValue) }
        }
    }

    /// One line per migration: its state, and for a state migrate refuses, why.
    static func line(for entry: MigrationStatusEntry, in status: MigrationStatus) -> String {
        switch entry.state {
        case .applied:
            return "applied  \(entry.identifier)"
        case .pending:
            return "pending  \(entry.identifier)"
        case .modified:
            return "modified \(entry.identifier) (edited since it was applied; migrate refuses until the edit is reverted or accepted)"
        case .outOfOrder:
            let latest = status.entries.last { $0.state == .applied || $0.state == .modified }?.identifier ?? "a later migration"
            return "out-of-order \(entry.identifier) (pending, but sorts before the applied \(latest); migrate refuses without --allow-out-of-order)"
        case .partlyMerged:
            return "partly-merged \(entry.identifier) (replaces \(entry.mergedApplied.joined(separator: ", ")), applied, and \(entry.mergedMissing.joined(separator: ", ")), not applied; migrate refuses: apply the missing ones with the version that has them first)"
        }
    }
}

/// What `status --json` prints.
struct StatusDocument: Encodable {
    struct Migration: Encodable {
        let identifier: String
        /// "applied", "pending", "modified", "outOfOrder" or "partlyMerged".
        let state: String
        /// For "partlyMerged": the replaced migrations that are applied; otherwise null.
        @AlwaysPresent var mergedApplied: [String]?
        /// For "partlyMerged": the replaced migrations that are not; otherwise null.
        @AlwaysPresent var mergedMissing: [String]?
    }
    let database: String
    /// False when the database file does not exist yet.
    let exists: Bool
    @AlwaysPresent var sqlcipherVersion: String?
    let sqliteVersion: String
    /// The database's effective cipher settings; null for a plaintext database.
    @AlwaysPresent var cipher: EffectiveCipherSettings?
    /// "sqlcipher4", "sqlcipher3", "sqlcipher2", "sqlcipher1", "custom" or "plaintext";
    /// null when the database does not exist yet.
    @AlwaysPresent var format: CipherFormat?
    let migrations: [Migration]
    /// Identifiers in the ledger that no migration file has.
    let unknownApplied: [String]
    let appliedCount: Int
    let pendingCount: Int
    /// Whether a plain `migrate` would refuse this database (`status --exit-code` then
    /// exits 7).
    let migrateWouldRefuse: Bool
}
