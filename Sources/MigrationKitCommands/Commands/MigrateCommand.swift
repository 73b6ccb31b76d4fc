import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

struct MigrateCommand: UsesProjectConnectionAndBackup, PrintsOutput, AcceptsHistoryOverrides {
    init() {}

    static let historyOverrides: Set<HistoryOverride> = [.acceptModified, .acceptUnknown]

    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending migrations, each in its own transaction, then verify the database.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup package var minimum: MinimumSQLiteOptions
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
    package var dryRun = false

    @Option(name: .customLong("accept-modified"), help: ArgumentHelp("Accept an applied migration's edited file and record its new checksum (repeatable).", valueName: "id"))
    var acceptModified: [String] = []

    @Option(name: .customLong("accept-unknown"), help: ArgumentHelp("Migrate a database that has applied this migration, which is not among the known ones (a newer version's), all the same (repeatable).", valueName: "id"))
    var acceptUnknown: [String] = []

    @Flag(name: .customLong("erase-on-schema-change"), help: "DEVELOPMENT ONLY: erase the database when its history no longer matches the migrations, then migrate from scratch.")
    var eraseOnSchemaChange = false

    @Flag(name: .customLong("yes"), help: "Confirm --erase-on-schema-change without a prompt.")
    var yes = false

    @Flag(name: .customLong(ProjectSetting.acceptExistingTables.rawValue), help: "Migrate a database that has tables and no ledger as if it were new: for an app that creates tables itself before its first migration, whose first migrations then run over them.")
    var acceptExistingTables = false

    @Flag(name: .customLong("no-lint"), help: "Skip the lint of pending migrations (its errors otherwise block the run).")
    var noLint = false

    @Option(name: .customLong("verify"), help: ArgumentHelp("What to verify after migrating: changed (quick_check of the tables the migrations wrote, and the foreign keys of those and of the tables pointing at them) or full (the whole file, as the verify command does).", valueName: "changed|full"))
    var verification: VerificationExtent = .changed

    @OptionGroup(title: "Fleet options") package var fleet: FleetOptions

    package func validate() throws {
        if atomic && dryRun { throw ValidationError("--dry-run already runs atomically; give one of --atomic and --dry-run.") }
        if dryRun && eraseOnSchemaChange { throw ValidationError("--dry-run cannot be combined with --erase-on-schema-change.") }
        if yes && !eraseOnSchemaChange { throw ValidationError("--yes only confirms --erase-on-schema-change.") }
        if isFleet && eraseOnSchemaChange {
            throw ValidationError("--erase-on-schema-change works on one database; give one --db-path.")
        }
    }

    private var options: MigrateOptions {
        MigrateOptions(mode: dryRun ? .dryRun : (atomic ? .atomic : .perStep), acceptModified: Set(acceptModified),
                       verification: verification.scope, acceptUnknown: Set(acceptUnknown))
    }

    package func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        if isFleet { return try runFleet(reporter: reporter, in: world) }
        // The migrations' verdict comes before anything is written: they are read (and, for
        // a new database, where every file is pending and there is nothing to consult,
        // linted) before the key is asked for, and their errors win over the path's.
        let requestedPath = Result { try connection.requiredPath() }
        // One look at the path decides "new" for the whole command (`OpenRequest.isNew`).
        let found = (try? requestedPath.get()).map(OpenRequest.find(at:))
        let existedBefore = found.map { !OpenRequest.isNew($0) } ?? true
        let loaded = try LoadedMigrations.load(connection.migrations, requiredIndexes: requiredIndexes, reporter: reporter, in: world)
        if !existedBefore, !noLint, let files = loaded.files {
            try PendingLint(context: minimum.applied(to: world.layer.library.lintContext), suppressions: ProjectSettings.lintSuppressions(in: world))
                .check(files, reporter: reporter)
        }
        let progress = ProgressLine(enabled: !output.quiet && !output.json && reporter.console.standardErrorIsTerminal, on: reporter.console)
        defer { progress.stop() }
        var migrations = loaded.migrations
        if let target { _ = try migrations.index(ofTarget: target) }
        migrations.allowOutOfOrder = allowOutOfOrder
        migrations.observer = Self.observer(progress: progress, reporter: reporter, dryRun: dryRun, journal: world.journal)
        if atomic || dryRun { world.journal.runsAllOrNothing() }
        // A dry run on a database that does not exist yet runs on a scratch one, which no
        // other process knows of: it takes no change lock.
        let path = try requestedPath.get()
        let scratch = dryRun && !existedBefore ? try ScratchFolder(purpose: "dry-run") : nil
        defer { withExtendedLifetime(scratch) {} }
        let asked = try OpenRequest.resolving(connection, access: .create, found: found, reporter: reporter, in: world)
        let request = scratch.map { asked.forFile(at: $0.path + "/dry-run.db") } ?? asked
        if scratch != nil { reporter.line("\(path) does not exist yet: dry run on an empty scratch database.") }
        let session = try scratch == nil ? MigrationSession.open(request, migrations: migrations, in: world)
            : MigrationSession.openScratch(request, migrations: migrations, in: world)
        do {
            // One read of the ledger serves lint, the backup decision and the engine's
            // first plan.
            if existedBefore { try refuseUnadopted(session, in: world) }
            if existedBefore { try reportNewerMigrations(session, reporter: reporter, in: world) }
            if existedBefore, !noLint, let files = loaded.files {
                try lintPending(files, session: session, reporter: reporter, in: world)
            }
        } catch {
            // A database this run created is not left behind.
            session.discardIfCreated()
            throw error
        }

        var erased: SchemaChange?
        var backupPath: String?
        if eraseOnSchemaChange, let change = try session.schemaChange() {
            try confirmErase(change, in: world.surroundings)
            // Erasing is destructive: always back up first, --no-backup or not.
            backupPath = try session.backup(backup, in: world)
            reporter.line("Backup before erasing: \(backupPath ?? "")")
            try session.erase()
            erased = change
        } else if existedBefore, !dryRun, !backup.skip, try session.changesAnything(upTo: target, options: options) {
            backupPath = try session.backup(backup, in: world)
            reporter.line("Backup: \(backupPath ?? "")")
        }

        // A database this run created and kept nothing in is not left behind.
        let report = try session.migrate(upTo: target, options: options)
        printSummary(report, reporter: reporter)
        if let notChecked = world.appExtensionAdvice.warning(notVerifying: report.unmetNeeds) { reporter.warning(notChecked) }
        try reporter.document(MigrateDocument(
            database: session.path,
            databaseName: world.databaseName,
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

    /// A database another tool migrated and MigrationKit has not adopted, or one with
    /// tables and no ledger at all, is refused before anything is written (no backup):
    /// the migrations would run again over tables that exist (`OtherToolNotice`), unless
    /// `--accept-existing-tables` (or the setting) says the app made them.
    /// `--erase-on-schema-change` erases it instead.
    func refuseUnadopted(_ session: MigrationSession, in world: CommandWorld) throws {
        guard try session.ledger().snapshot.identifiers.isEmpty, !eraseOnSchemaChange else { return }
        let accepting = acceptExistingTables || ProjectSettings.acceptsExistingTables(in: world)
        guard let finding = try session.read({ try OtherToolNotice.finding(in: $0, acceptingExistingTables: accepting) }) else { return }
        throw CLIError(.notAdopted, OtherToolNotice.sentence(finding, database: session.path, commandName: world.layer.commandName))
    }

    /// Lints the pending files against the database: warnings are printed, errors
    /// stop the run before anything changes.
    ///
    /// - Parameter listed: the findings are printed; a fleet, which does not print each
    ///   database's, points at `lint` instead.
    func lintPending(_ files: [SQLMigrationFile], session: MigrationSession, reporter: Reporter,
                             listed: Bool = true, in world: CommandWorld) throws {
        let checked = try session.pending(among: files)
        guard !checked.isEmpty else { return }
        try lint(checked, context: try session.lintContext(for: checked, linked: world.layer.library.lintContext), reporter: reporter,
                 listed: listed ? nil : session.path, in: world)
    }

    /// - Parameter listed: nil when the findings are printed here; otherwise the
    ///   database whose `lint` shows them.
    private func lint(_ checked: [SQLMigrationFile], context: LintContext, reporter: Reporter, listed database: String? = nil,
                      in world: CommandWorld) throws {
        try PendingLint(context: minimum.applied(to: context), suppressions: ProjectSettings.lintSuppressions(in: world))
            .check(checked, reporter: reporter, listedBy: database.map { "\(world.layer.commandName) lint --db-path \($0)" })
    }

    /// Says what changed and what will be erased, then asks on a terminal (the command's
    /// standard input) or requires --yes.
    /// Says once that a newer version's migrations are compatible with this one and stay;
    /// or, before the refusal, what stands in the way for each one that is not (unless
    /// `--accept-unknown` vouches for every one).
    private func reportNewerMigrations(_ session: MigrationSession, reporter: Reporter, in world: CommandWorld) throws {
        let newer = NewerDatabaseReport(judgement: try session.status().newer)
        if let compatible = newer.compatibleLine {
            reporter.line(compatible)
        } else if !Set(newer.judgement.blocking).isSubset(of: acceptUnknown) {
            for line in newer.refusalLines(commandName: world.layer.commandName) { reporter.warning(line) }
        }
    }

    private func confirmErase(_ change: SchemaChange, in surroundings: ProcessSurroundings) throws {
        let erased = change.objectsToErase.isEmpty ? "(nothing)" : change.objectsToErase.joined(separator: ", ")
        surroundings.console.error("The database's migration history no longer matches the migrations: \(change).")
        surroundings.console.error("Erasing removes every row of: \(erased).")
        if yes { return }
        try surroundings.confirm("Erase this development database and migrate from scratch?", typing: "erase",
                                 refusal: "Refusing to erase without confirmation: pass --yes, or run on a terminal to be asked. Nothing was changed.")
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

    /// - Parameter journal: the run's journal, which records each event too.
    static func observer(progress: ProgressLine, reporter: Reporter, dryRun: Bool, journal: RunJournal) -> @Sendable (MigrationEvent) -> Void {
        { event in
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
