import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct StatusCommand: UsesProjectConnection, FleetCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List every migration as applied or pending, and applied ones with no file.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") var fleet: FleetOptions

    @OptionGroup var exitCode: StatusExitCodeOption

    var fleetVerb: String { "Reading" }

    func runOnDatabase(reporter: Reporter) throws -> StatusDocument {
        let runner = try CommandSupport.runner(connection.migrations, reporter: reporter)
        let path = try connection.requiredPath()
        guard FileManager.default.fileExists(atPath: path) else {
            // Not created yet: everything is pending, and status creates nothing.
            CommandSupport.announce(path, reporter: reporter, note: "does not exist yet: migrate creates it")
            CommandSupport.warnIfOnCommandLine(connection.key, reporter: reporter)
            let status = MigrationAnalysis(registry: runner.registry, snapshot: LedgerSnapshot(identifiers: [])).status
            return report(status, database: path, exists: false, cipher: nil, reporter: reporter)
        }
        let writer = try CommandSupport.openWriter(connection, access: .inspect, reporter: reporter)
        return report(try runner.migrationStatus(in: writer), database: writer.path, exists: true,
                      cipher: try writer.effectiveCipherSettings(), reporter: reporter)
    }

    func finishAlone(_ report: StatusDocument, reporter: Reporter) throws {
        if let code = exitCode(for: report) { throw ExitCode(code.rawValue) }
    }

    func failure(in report: StatusDocument) -> ErrorPresentation? {
        guard let code = exitCode(for: report) else { return nil }
        return ErrorPresentation(kind: code == .refused ? "refused" : "pendingMigrations",
                                 message: code == .refused ? "migrate would refuse it; run status on it alone to see why."
                                     : "\(report.pendingCount) migration\(report.pendingCount == 1 ? "" : "s") pending.",
                                 exitCode: code)
    }

    func fleetResult(_ report: StatusDocument) -> String {
        "\(report.appliedCount) applied, \(report.pendingCount) pending"
    }

    /// `--exit-code`'s verdict on one database, when it was asked for.
    private func exitCode(for report: StatusDocument) -> CLIExitCode? {
        guard exitCode.isRequested else { return nil }
        return StatusReport.exitCode(migrateWouldRefuse: report.migrateWouldRefuse, pending: report.pendingCount)
    }

    /// A fleet's status: one line per database, the ones needing attention first —
    /// those that did not open, then those migrate would refuse (edited, out of order,
    /// newer), then those with pending migrations — each group in the order named.
    func fleetTable(_ outcomes: [FleetOutcome<StatusDocument>]) -> [String]? {
        func attention(_ outcome: FleetOutcome<StatusDocument>) -> Int {
            guard let report = outcome.value else { return outcome.state == .notStarted ? 4 : 0 }
            if report.migrateWouldRefuse || report.migrations.contains(where: { $0.state != "applied" && $0.state != "pending" }) { return 1 }
            return report.pendingCount > 0 ? 2 : 3
        }
        let sorted = outcomes.enumerated().sorted { (attention($0.element), $0.offset) < (attention($1.element), $1.offset) }.map(\.element)
        let header = ["DATABASE", "APPLIED", "PENDING", "ATTENTION", "FORMAT", "LAST APPLIED", "SIZE"]
        let rows = sorted.map { outcome -> [String] in
            guard let report = outcome.value else {
                let why = outcome.state == .failed ? "did not open (exit \(outcome.failure?.exitCode.rawValue ?? 1)), below" : "\(outcome.state)"
                return [outcome.path, "-", "-", why, "-", "-", "-"]
            }
            let odd = report.migrations.filter { $0.state != "applied" && $0.state != "pending" }
            let notes = odd.map { "\($0.identifier) \($0.state)" } + report.unknownApplied.map { "\($0) unknown" }
            let last = report.migrations.last { $0.state == "applied" || $0.state == "modified" }?.identifier ?? "-"
            let size = report.exists ? ByteCountFormatter.string(fromByteCount: FileProbe(path: outcome.path).size, countStyle: .file) : "not created"
            return [outcome.path, "\(report.appliedCount)", "\(report.pendingCount)", notes.isEmpty ? "-" : notes.joined(separator: ", "),
                    report.format?.rawValue ?? "-", last, size]
        }
        // Why each one that did not open failed, after the table, whose lines stay short.
        return FleetSummary.columns([header] + rows) + sorted.filter { $0.value == nil }.compactMap { $0.failure?.message }
    }

    private func report(_ status: MigrationStatus, database: String, exists: Bool, cipher: EffectiveCipherSettings?, reporter: Reporter) -> StatusDocument {
        reporter.line("  library: \(SQLCipherLibrary.summary)")
        if exists { reporter.line("  cipher:  \(cipher?.summary ?? "none (plaintext database)")") }
        if exists { reporter.line("  format:  \((cipher?.format ?? .plaintext).rawValue)") }
        let report = StatusReport(status)
        report.print(to: reporter)
        return StatusDocument(
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
            migrateWouldRefuse: status.migrateWouldRefuse)
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
