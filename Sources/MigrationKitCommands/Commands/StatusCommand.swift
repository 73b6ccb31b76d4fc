import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

struct StatusCommand: UsesProjectConnection, FleetCommand {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List every migration as applied or pending, and applied ones with no file.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") package var fleet: FleetOptions

    @OptionGroup package var exitCode: StatusExitCodeOption

    var fleetVerb: String { "Reading" }

    package func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> StatusDocument {
        let loaded = try LoadedMigrations.load(connection.migrations, reporter: reporter, in: world)
        let migrations = loaded.migrations
        let path = try connection.requiredPath()
        guard FileManager.default.fileExists(atPath: path) else {
            // Not created yet: everything is pending, and status creates nothing.
            world.announce(path, reporter: reporter, note: "does not exist yet: migrate creates it")
            connection.key.warnIfOnCommandLine(reporter: reporter, in: world)
            return report(migrations.statusOfNewDatabase, database: path, exists: false, cipher: nil, layout: layout(of: loaded.files, in: world), reporter: reporter, in: world)
        }
        let session = try MigrationSession.open(connection, migrations: migrations, access: .inspect, reporter: reporter, in: world)
        let database = session
        let status = try session.status()
        // Files two tools write alike (golang-migrate's pairs, sqlx's reversible ones) are
        // named after the tool whose ledger the database holds.
        var layout = layout(of: loaded.files, in: world)
        if let detected = layout, connection.migrations.givenLayout == nil,
           let sameFiles = MigrationFolderLayout(name: detected.name)?.sameFiles, !sameFiles.isEmpty {
            let tools = try database.read { try OtherToolLedger.all(in: $0) }.map(\.tool)
            if let writer = sameFiles.first(where: { same in tools.contains { $0.name == same.name } }),
               let table = OtherTool(name: writer.name)?.ledgerTables.first {
                layout = (writer.name, "detected from its files and \(table)")
            }
        }
        let unmanaged = status.applied.isEmpty && status.unknownApplied.isEmpty
            ? try database.read { try OtherToolNotice.finding(in: $0, acceptingExistingTables: ProjectSettings.acceptsExistingTables(in: world)) } : nil
        return report(status, database: database.path, exists: true, cipher: try database.cipherDescription(), layout: layout,
                      swiftSteps: loaded.files == nil ? [] : try Self.appliedBySwiftSteps(status, in: database), unmanaged: unmanaged, reporter: reporter, in: world)
    }

    /// The migrations folder's layout and where it came from (`detected` from its files,
    /// or the flag, variable or project file that named it); nil for a host's Swift steps.
    private func layout(of files: [SQLMigrationFile]?, in world: CommandWorld) -> (name: String, origin: String)? {
        guard let files else { return nil }
        guard let named = connection.migrations.givenLayout else {
            return ((files.first?.layout ?? .migrationKit).name, "detected from its files")
        }
        switch world.settings?.values[.migrationsLayout]?.origin {
        case .file(let path, let line)?:
            return (named.name, "\(ProjectSetting.migrationsLayout.rawValue) in \(path)\(line.map { ":\($0)" } ?? "")")
        case .environment(let variable)?:
            return (named.name, variable)
        default:
            return (named.name, "--layout")
        }
    }

    /// Of the ledger's identifiers no migration file here has, those an app's Swift steps
    /// applied: their history rows carry no checksum, where a migration file's do. (In an
    /// app's own commands, a step the app does not have is a newer version's, as GRDB
    /// says of it.)
    private static func appliedBySwiftSteps(_ status: MigrationStatus, in database: MigrationSession) throws -> Set<String> {
        guard !status.unknownApplied.isEmpty else { return [] }
        let unknown = Set(status.unknownApplied)
        let history = try database.read { try MigrationBookkeeping.history(in: $0) }
        return Set(history.values.filter { $0.checksum == nil && unknown.contains($0.identifier) }.map(\.identifier))
    }

    package func finishAlone(_ report: StatusDocument, reporter: Reporter) throws {
        if let verdict = verdict(on: report) { throw ExitCodeDecision.ending(with: verdict) }
    }

    /// In a fleet, a database listed but not there is a failure of its own (a tenant's
    /// file lost, or a list that names the wrong place), whether or not `--exit-code`
    /// was asked: alone, `status` of a database not created yet is what comes before
    /// the first `migrate`.
    package func failure(in report: StatusDocument) -> ErrorPresentation? {
        if !report.exists {
            return ErrorPresentation(row: ExitCodeDecision.missingDatabase,
                                     message: "is listed, but no database exists at this path; check the path and the list (`migrate` creates a database that is not there yet).")
        }
        guard let verdict = verdict(on: report) else { return nil }
        let refused = verdict == .migrateWouldRefuse
        return ErrorPresentation(row: ExitCodeDecision.row(for: verdict),
                                 message: refused ? "migrate would refuse it; run status on it alone to see why."
                                     : "\(report.pendingCount) migration\(report.pendingCount == 1 ? "" : "s") pending.")
    }

    package func fleetResult(_ report: StatusDocument) -> String {
        "\(report.appliedCount) applied, \(report.pendingCount) pending"
    }

    /// `--exit-code`'s verdict on one database, when it was asked for.
    private func verdict(on report: StatusDocument) -> CommandVerdict? {
        guard exitCode.isRequested else { return nil }
        return StatusReport.verdict(migrateWouldRefuse: report.migrateWouldRefuse, pending: report.pendingCount)
    }

    /// A fleet's status: one line per database, the ones needing attention first —
    /// those that did not open, then those migrate would refuse (edited, out of order,
    /// newer), then those with pending migrations — each group in the order named.
    package func fleetTable(_ outcomes: [FleetOutcome<StatusDocument>]) -> [String]? {
        func attention(_ outcome: FleetOutcome<StatusDocument>) -> Int {
            guard let report = outcome.value else { return outcome.state == .notStarted ? 4 : 0 }
            if !report.exists { return 0 }
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
            let notes = (report.exists ? [] : ["missing (exit 9), below"]) + odd.map { "\($0.identifier) \($0.state)" } + report.unknownApplied.map { "\($0) unknown" }
            let last = report.migrations.last { $0.state == "applied" || $0.state == "modified" }?.identifier ?? "-"
            let size = report.exists ? ByteCountFormatter.string(fromByteCount: FileProbe(path: outcome.path).size, countStyle: .file) : "not created"
            return [outcome.path, "\(report.appliedCount)", "\(report.pendingCount)", notes.isEmpty ? "-" : notes.joined(separator: ", "),
                    report.format?.rawValue ?? "-", last, size]
        }
        // Why each one that did not open failed, after the table, whose lines stay short.
        return FleetSummary.columns([header] + rows) + sorted.filter { $0.value.map { !$0.exists } ?? true }.compactMap { $0.failure?.message }
    }

    private func report(_ status: MigrationStatus, database: String, exists: Bool, cipher: DatabaseCipherDescription?,
                        layout: (name: String, origin: String)?, swiftSteps: Set<String> = [], unmanaged: OtherToolNotice.Finding? = nil,
                        reporter: Reporter, in world: CommandWorld) -> StatusDocument {
        let layer = world.layer
        reporter.line("  library: \(layer.library.summary)")
        if let layout { reporter.line("  migrations: \(connection.migrations.directory), \(layout.name) layout (\(layout.origin))") }
        if exists {
            for line in (cipher ?? DatabaseCipherDescription(format: .plaintext, summary: nil, document: nil)).lines { reporter.line(line) }
        }
        let report = StatusReport(status, appliedBySwiftSteps: swiftSteps)
        report.print(to: reporter)
        // Another tool's database, not adopted yet, or tables without a ledger: said
        // after the list, which shows everything pending, as migrate would refuse it.
        if let unmanaged { reporter.line(OtherToolNotice.sentence(unmanaged, database: database, commandName: layer.commandName)) }
        let otherTools = unmanaged?.ledgers ?? []
        return StatusDocument(
            database: database,
            databaseName: world.databaseName,
            exists: exists,
            sqlcipherVersion: layer.library.cipherVersion,
            sqliteVersion: layer.library.sqliteVersion,
            cipher: cipher?.document.map(AnyEncodable.init),
            format: exists ? (cipher?.format ?? .plaintext) : nil,
            layout: layout?.name,
            migrations: report.migrations,
            unknownApplied: status.unknownApplied,
            appliedCount: status.applied.count,
            pendingCount: status.pending.count,
            migrateWouldRefuse: status.migrateWouldRefuse || unmanaged != nil,
            otherTools: otherTools.map { OtherToolDocument(tool: $0.tool.name, lastVersion: $0.lastVersion) },
            newer: NewerDatabaseReport(judgement: status.newer).document)
    }
}

/// What `status --json` prints.
struct StatusDocument: Encodable {
    package let database: String
    @AlwaysPresent package var databaseName: String?
    /// False when the database file does not exist yet.
    let exists: Bool
    @AlwaysPresent var sqlcipherVersion: String?
    package let sqliteVersion: String
    /// The database's effective cipher settings; null for a plaintext database.
    @AlwaysPresent package var cipher: AnyEncodable?
    /// "sqlcipher4", "sqlcipher3", "sqlcipher2", "sqlcipher1", "custom" or "plaintext";
    /// null when the database does not exist yet.
    @AlwaysPresent package var format: CipherFormat?
    /// The migrations folder's layout (`migrationkit`, `sqlx`, `golang-migrate`, `goose`,
    /// `flyway`, `diesel`, `prisma`, `drizzle`, `refinery`, `sql-migrate`); null for an
    /// app's own Swift steps.
    @AlwaysPresent var layout: String?
    package let migrations: [MigrationStateDocument]
    /// Identifiers in the ledger that no migration file has.
    let unknownApplied: [String]
    let appliedCount: Int
    let pendingCount: Int
    /// Whether a plain `migrate` would refuse this database (`status --exit-code` then
    /// exits 7).
    let migrateWouldRefuse: Bool
    /// Other migration tools' ledgers in a database MigrationKit's ledger records
    /// nothing of (`adopt` takes it over); empty otherwise.
    let otherTools: [OtherToolDocument]
    /// What this version can do with `unknownApplied` (`NewerDatabaseReport.Document`);
    /// null when nothing newer is applied.
    @AlwaysPresent var newer: NewerDatabaseReport.Document?
}

/// Another tool's ledger, as `status --json` names it.
struct OtherToolDocument: Encodable {
    /// The tool, as `adopt --from` names it.
    let tool: String
    /// The latest version its ledger records.
    package let lastVersion: String?
}
