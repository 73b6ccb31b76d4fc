import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitCommands
import MigrationKitKeys
import MigrationKitSQLCipher

struct MigrateCommand: UsesProjectConnectionAndBackup, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending migrations, each in its own transaction, then verify the database.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var minimum: MinimumSQLiteOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("to"), help: ArgumentHelp("Stop after this migration.", valueName: "id"))
    var target: String?

    @Flag(name: .customLong("allow-out-of-order"), help: "Apply pending migrations that sort before the latest applied one.")
    var allowOutOfOrder = false

    @Option(name: .customLong("require-index"), help: ArgumentHelp("Fail verification unless this index exists (repeatable).", valueName: "table:index"))
    var requiredIndexes: [RequiredIndexSpec] = []

    @Flag(name: .customLong("atomic"), help: "Run every pending migration and the verification in one transaction: all or nothing.")
    var atomic = false

    @Flag(name: .customLong("dry-run"), help: "Run as --atomic would, report what would change, then roll everything back.")
    var dryRun = false

    @Option(name: .customLong("accept-modified"), help: ArgumentHelp("Accept an applied migration's edited file and record its new checksum (repeatable).", valueName: "id"))
    var acceptModified: [String] = []

    @Flag(name: .customLong("erase-on-schema-change"), help: "DEVELOPMENT ONLY: erase the database when its history no longer matches the migrations, then migrate from scratch.")
    var eraseOnSchemaChange = false

    @Flag(name: .customLong("yes"), help: "Confirm --erase-on-schema-change without a prompt.")
    var yes = false

    @Flag(name: .customLong("no-lint"), help: "Skip the lint of pending migrations (its errors otherwise block the run).")
    var noLint = false

    @Option(name: .customLong("verify"), help: ArgumentHelp("What to verify after migrating: changed (quick_check of the tables the migrations wrote, and the foreign keys of those and of the tables pointing at them) or full (the whole file, as the verify command does).", valueName: "changed|full"))
    var verification: VerificationExtent = .changed

    @OptionGroup(title: "Fleet options") var fleet: FleetOptions

    func validate() throws {
        if atomic && dryRun { throw ValidationError("--dry-run already runs atomically; give one of --atomic and --dry-run.") }
        if dryRun && eraseOnSchemaChange { throw ValidationError("--dry-run cannot be combined with --erase-on-schema-change.") }
        if yes && !eraseOnSchemaChange { throw ValidationError("--yes only confirms --erase-on-schema-change.") }
        if isFleet && eraseOnSchemaChange {
            throw ValidationError("--erase-on-schema-change works on one database; give one --db-path.")
        }
    }

    private var options: MigrateOptions {
        MigrateOptions(mode: dryRun ? .dryRun : (atomic ? .atomic : .perStep), acceptModified: Set(acceptModified),
                       verification: verification.scope)
    }

    func run() throws {
        let reporter = Reporter(output)
        if isFleet { return try runFleet(reporter: reporter) }
        // The migrations are read (and, for a new database, where every file is pending
        // and there is nothing to consult, linted) on a thread of their own while the key
        // is resolved and derived, most of a short run. Their verdict still comes before
        // anything is written: their errors win over the open's, and remove the file the
        // open created.
        let requestedPath = Result { try connection.requiredPath() }
        let existedBefore = (try? requestedPath.get()).map { FileManager.default.fileExists(atPath: $0) } ?? true
        let minimum = self.minimum
        let loading = MigrationsLoading.start(connection.migrations, verifier: SQLCipherMigrationVerifier(requiredIndexes: requiredIndexes),
                                              lint: existedBefore || noLint ? nil : PendingLint(makingContext: { minimum.applied(to: .linkedLibrary) }))
        let progress = ProgressLine(enabled: !output.quiet && !output.json && Console.standardErrorIsTerminal)
        defer { progress.stop() }
        if atomic || dryRun { CLIContext.journal.runsAllOrNothing() }
        // A dry run on a database that does not exist yet runs on a scratch one.
        var scratch: ScratchFolder?
        defer { withExtendedLifetime(scratch) {} }
        let writer: SQLCipherWriter
        do {
            let path = try requestedPath.get()
            scratch = dryRun && !existedBefore ? try ScratchFolder(purpose: "dry-run") : nil
            writer = try scratch.map { folder in
                let settings = try CommandSupport.connectionSettings(connection, access: .create, reporter: reporter)
                reporter.line("\(path) does not exist yet: dry run on an empty scratch database.")
                return try CLIContext.host.openWriter(ConnectionSettings(path: folder.path + "/dry-run.db", key: settings.key, configuration: settings.configuration))
            } ?? CommandSupport.openWriter(connection, access: .create, reporter: reporter)
        } catch {
            _ = try loading.finish(reporter: reporter)
            throw error
        }
        var runner: SQLCipherMigrationRunner
        do {
            let loaded = try loading.finish(reporter: reporter)
            runner = loaded.runner
            if let target { _ = try runner.registry.index(ofTarget: target) }
            if existedBefore, !noLint, let files = loaded.files { try lintPending(files, runner: runner, writer: writer, reporter: reporter) }
        } catch {
            // A database this run created is not left behind.
            if scratch == nil { _ = writer.discardCreatedDatabase() }
            throw error
        }
        runner.allowOutOfOrder = allowOutOfOrder
        runner.observer = Self.observer(progress: progress, reporter: reporter, dryRun: dryRun)

        var erased: SchemaChange?
        var backupPath: String?
        if eraseOnSchemaChange, let change = try runner.schemaChange(in: writer) {
            try confirmErase(change, reporter: reporter)
            // Erasing is destructive: always back up first, --no-backup or not.
            backupPath = try backup.create(of: writer)
            reporter.line("Backup before erasing: \(backupPath ?? "")")
            try runner.erase(writer)
            erased = change
        } else if existedBefore, !dryRun, !backup.skip, try needsChange(runner, writer) {
            backupPath = try backup.create(of: writer)
            reporter.line("Backup: \(backupPath ?? "")")
        }

        let report: MigrationReport
        do {
            report = try target.map { try runner.migrate(in: writer, upTo: $0, options: options) } ?? runner.migrate(in: writer, options: options)
        } catch {
            // A database this run created and kept nothing in is not left behind.
            if scratch == nil { writer.discardCreatedDatabase() }
            throw error
        }
        printSummary(report, reporter: reporter)
        try reporter.document(MigrateDocument(
            database: writer.path,
            databaseName: CommandSupport.databaseName,
            applied: report.steps.map { .init(identifier: $0.identifier, durationMs: $0.duration.wholeMilliseconds) },
            durationMs: report.duration.wholeMilliseconds,
            verification: "passed",
            checks: report.verification,
            dryRun: report.isDryRun,
            schemaDiff: report.isDryRun ? SchemaDiff(before: report.schemaBefore ?? "", after: report.schemaAfter ?? "").lines : nil,
            backup: backupPath,
            adoptedChecksums: report.adoptedChecksums,
            erased: erased.map { $0.description }))
    }

    /// Lints the pending files against the database: warnings are printed, errors
    /// stop the run before anything changes.
    ///
    /// - Parameter listed: the findings are printed; a fleet, which does not print each
    ///   database's, points at `lint` instead.
    func lintPending(_ files: [SQLMigrationFile], runner: SQLCipherMigrationRunner, writer: SQLCipherWriter, reporter: Reporter, listed: Bool = true) throws {
        let pending = Set(try runner.migrationStatus(in: writer).pending)
        let checked = files.filter { pending.contains($0.identifier) }
        guard !checked.isEmpty else { return }
        try lint(checked, context: try writer.read { try LintContext.reading($0, for: checked) }, reporter: reporter,
                 listed: listed ? nil : writer.path)
    }

    /// - Parameter listed: nil when the findings are printed here; otherwise the
    ///   database whose `lint` shows them.
    private func lint(_ checked: [SQLMigrationFile], context: LintContext, reporter: Reporter, listed database: String? = nil) throws {
        try PendingLint(context: minimum.applied(to: context))
            .check(checked, reporter: reporter, listedBy: database.map { "\(CLIContext.host.commandName) lint --db-path \($0)" })
    }

    /// Whether migrating will write anything (steps pending, or bookkeeping), so a
    /// backup is worth taking; an up-to-date database is not copied on every launch.
    /// Throws what migrate would refuse for (a newer version's database, a half-applied
    /// merge, edited or out-of-order migrations, a target already passed), so a
    /// refused run writes no backup and prunes none.
    func needsChange(_ runner: SQLCipherMigrationRunner, _ writer: SQLCipherWriter) throws -> Bool {
        try runner.migratePlan(in: writer, upTo: target, options: options).changesAnything
    }

    /// Says what changed and what will be erased, then asks on a terminal or requires --yes.
    private func confirmErase(_ change: SchemaChange, reporter: Reporter) throws {
        let lines = ["The database's migration history no longer matches the migrations: \(change)."]
            + ["Erasing removes every row of: " + (change.objectsToErase.isEmpty ? "(nothing)" : change.objectsToErase.joined(separator: ", ")) + "."]
        for line in lines { Console.error(line) }
        if yes { return }
        guard StandardInput.isTerminal else {
            throw CLIError(.refused, "Refusing to erase without confirmation: pass --yes, or run on a terminal to be asked. Nothing was changed.")
        }
        Console.errorRaw("Erase this development database and migrate from scratch? Type \"erase\" to confirm: ")
        guard readLine()?.trimmingCharacters(in: .whitespaces) == "erase" else {
            throw CLIError(.refused, "Not confirmed; nothing was changed.")
        }
    }

    private func printSummary(_ report: MigrationReport, reporter: Reporter) {
        let verified = report.verification.isEmpty
            ? "nothing changed, so nothing needed verifying (`verify` checks the whole file)"
            : "verification passed (\(report.verification.joined(separator: ", ")))"
        if let orphans = report.preexistingForeignKeyViolations { reporter.warning(orphans.preexistingWarning) }
        // A dry run rolls its bookkeeping back with everything else: it would, not did.
        for merge in report.merges {
            reporter.line("\(report.isDryRun ? "Would merge" : "Merged") \(merge.replaces.joined(separator: ", ")) into \(merge.identifier) in the ledger")
        }
        if !report.adoptedChecksums.isEmpty {
            reporter.line("\(report.isDryRun ? "Would record" : "Recorded") checksums for \(report.adoptedChecksums.count) migration\(report.adoptedChecksums.count == 1 ? "" : "s") applied before checksums were kept.")
        }
        if report.isDryRun {
            reporter.line(report.steps.isEmpty ? "Dry run: nothing to apply." : "Dry run: \(report.steps.count) migration\(report.steps.count == 1 ? "" : "s") would apply in \(report.duration.humanReadable); \(verified).")
            let diff = SchemaDiff(before: report.schemaBefore ?? "", after: report.schemaAfter ?? "").lines
            reporter.line(diff.isEmpty ? "Schema: unchanged." : "Schema changes:")
            for line in diff { reporter.line("  " + line) }
            reporter.line("Rolled back: the database is unchanged.")
        } else if report.steps.isEmpty {
            reporter.line("Already up to date; \(verified).")
        } else {
            reporter.line("Applied \(report.steps.count) migration\(report.steps.count == 1 ? "" : "s") in \(report.duration.humanReadable); \(verified).")
        }
    }

    static func observer(progress: ProgressLine, reporter: Reporter, dryRun: Bool) -> @Sendable (MigrationEvent) -> Void {
        let journal = CLIContext.journal
        return { event in
            journal.record(event)
            switch event {
            case .willApply(let identifier, let position, let total):
                progress.start("[\(position)/\(total)] \(identifier)")
            case .didApply(let identifier, let duration):
                progress.stop()
                reporter.line("\(dryRun ? "Would apply" : "Applied") \(identifier) (\(duration.humanReadable))")
            case .willVerify:
                progress.start("Verifying")
            case .didVerify:
                progress.stop()
            default:
                break
            }
        }
    }
}

/// How much `migrate` verifies (`--verify`).
enum VerificationExtent: String, ExpressibleByArgument, CaseIterable {
    case changed, full

    var scope: MigrateOptions.Verification {
        switch self {
        case .changed: return .changedTables
        case .full: return .wholeFile
        }
    }
}
