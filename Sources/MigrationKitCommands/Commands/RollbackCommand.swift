import ArgumentParser
import MigrationKit
import MigrationKitFiles

struct RollbackCommand: UsesProjectConnectionAndBackup, FleetCommand, AcceptsHistoryOverrides {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Undo the latest applied migrations with their down SQL or rollback closures, then verify.")

    static let historyOverrides: Set<HistoryOverride> = [.acceptModified]

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") package var fleet: FleetOptions

    @OptionGroup var scope: RollbackScopeOptions

    @Option(name: .customLong("accept-modified"), help: ArgumentHelp("Roll back a migration edited since it was applied, with its edited down SQL (repeatable).", valueName: "id"))
    var acceptModified: [String] = []

    @Flag(name: .customLong("no-lint"), help: "Skip the lint of the down SQL to run (its errors otherwise block the rollback).")
    var noLint = false

    @Flag(name: .customLong("yes"), help: "Confirm --newer without a prompt.")
    var yes = false

    var fleetVerb: String { "Rolling back" }

    /// A fleet rolls back to a migration, or steps back from a newer version's, never by
    /// a count: run again after a failure or Ctrl-C, `--steps` would roll back the
    /// finished databases once more. A fleet asks no question per database.
    package func validateFleet(in world: CommandWorld) throws {
        if scope.newer {
            if !yes { throw CLIError(.conflictingOptions, "Over several databases, rollback --newer takes --yes: each database's step back is then made without a question, after its own backup.") }
            return
        }
        if scope.target == nil {
            throw CLIError(.conflictingOptions, "Over several databases, rollback takes --to ID (the migration to go back to), not --steps: a second run after a failure or Ctrl-C then rolls back nothing twice.")
        }
    }

    package func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> RollbackDocument {
        let loaded = try LoadedMigrations.load(connection.migrations, reporter: reporter, in: world)
        var migrations = loaded.migrations
        let journal = world.journal
        migrations.observer = { event in
            journal.record(event)
            if case .didRollback(let identifier, let duration) = event {
                reporter.line("Rolled back \(identifier) (\(duration.humanReadable))")
            }
        }
        let session = try MigrationSession.open(connection, migrations: migrations, access: .change, reporter: reporter, in: world)
        if scope.newer { return try stepBack(session, migrations: migrations, reporter: reporter, in: world) }
        let database = session
        // Everything the rollback would refuse for is checked before the backup, so a
        // refused rollback writes nothing (and prunes no older backup).
        let accepted = Set(acceptModified)
        let undone = scope.selection
        let plan = try database.rollbackPlan(undone, acceptModified: accepted)
        if !noLint, let files = loaded.files { try lintDownSQL(of: plan, in: files, reporter: reporter, world: world) }
        var backupPath: String?
        if !backup.skip, !plan.isEmpty {
            backupPath = try session.backup(backup, in: world)
            reporter.line("Backup: \(backupPath ?? "")")
        }
        let report = try session.rollback(undone, acceptModified: accepted)
        return finish(report, on: database, backup: backupPath, reporter: reporter, in: world, summary: report.steps.isEmpty
            ? "Nothing to roll back."
            : "Rolled back \(report.steps.count) migration\(report.steps.count == 1 ? "" : "s") in \(report.duration.humanReadable); verification passed.")
    }

    /// What every rollback says once it has run: the orphans it found, its summary, what
    /// the verification could not check; and its document.
    private func finish(_ report: MigrationReport, on session: MigrationSession, backup: String?, reporter: Reporter, in world: CommandWorld,
                        summary: String) -> RollbackDocument {
        if let orphans = report.preexistingForeignKeyViolations { reporter.warning(orphans.preexistingWarning) }
        reporter.line(summary)
        if let notChecked = world.appExtensionAdvice.warning(notVerifying: report.unmetNeeds) { reporter.warning(notChecked) }
        return RollbackDocument(
            database: session.path,
            databaseName: world.databaseName,
            backup: backup,
            rolledBack: report.steps.map { .init(identifier: $0.identifier, durationMs: $0.duration.wholeMilliseconds) },
            durationMs: report.duration.wholeMilliseconds)
    }

    /// `--newer`: judges the database; when a step back is possible, measures what it drops
    /// on a scratch copy, asks (or takes `--yes`), backs up whatever `--no-backup` says,
    /// then runs every stored down in one transaction. Nothing newer in the way is nothing
    /// to do; a database nothing stored here can step back from is refused, step by step.
    private func stepBack(_ session: MigrationSession, migrations: CommandMigrations, reporter: Reporter, in world: CommandWorld) throws -> RollbackDocument {
        let newer = NewerDatabaseReport(judgement: try session.status().newer)
        switch newer.judgement {
        case .current, .compatible:
            reporter.line(newer.compatibleLine ?? "Nothing newer to step back from: this version knows every applied migration.")
            return RollbackDocument(database: session.path, databaseName: world.databaseName, backup: nil, rolledBack: [], durationMs: 0)
        case .mustRefuse:
            for line in newer.refusalLines(commandName: world.layer.commandName) { reporter.warning(line) }
            throw MigrationKitError.databaseSuperseded(unknown: newer.judgement.blocking)
        case .canStepBack:
            break
        }
        let plan = try session.rollbackPlan(.newer, acceptModified: [])
        // Over several databases `--yes` has confirmed every one beforehand: no preview.
        if world.fleet == nil {
            let console = world.surroundings.console
            console.error("Stepping back undoes \(plan.joined(separator: ", ")) (newest first) with the down SQL the newer version stored in the database.")
            console.error(try measureLosses(session, migrations: migrations, in: world).sentence)
        }
        if !yes {
            try world.surroundings.confirm("Step back this database?", typing: "step back",
                                           refusal: "Refusing to step back without confirmation: pass --yes, or run on a terminal to be asked. Nothing was changed.")
        }
        // Stepping back drops what the newer version wrote: always back up first, --no-backup or not.
        let backupPath = try session.backup(backup, in: world)
        reporter.line("Backup: \(backupPath)")
        let report = try session.rollback(.newer, acceptModified: [])
        return finish(report, on: session, backup: backupPath, reporter: reporter, in: world,
                      summary: "Stepped back \(report.steps.count) migration\(report.steps.count == 1 ? "" : "s") in \(report.duration.humanReadable); "
                          + "verification passed; the backup holds the database as the newer version left it.")
    }

    /// What stepping back drops, from the stored downs run on a scratch copy of the
    /// database: the database itself is only read.
    private func measureLosses(_ session: MigrationSession, migrations: CommandMigrations, in world: CommandWorld) throws -> StepBackLosses {
        let scratch = try ScratchFolder(purpose: "step-back")
        defer { withExtendedLifetime(scratch) {} }
        let copyPath = scratch.path + "/preview.db"
        try session.copy(to: copyPath)
        var quiet = migrations
        quiet.observer = nil
        let preview = try MigrationSession.openScratch(session.request.forFile(at: copyPath), migrations: quiet, in: world)
        defer { try? preview.close() }
        _ = try preview.rollback(.newer, acceptModified: [])
        let after = try preview.read { try StepBackLosses.tables(in: $0) }
        return try session.read { db in StepBackLosses(before: try StepBackLosses.tables(in: db), after: after, countingIn: db) }
    }

    /// Lints the down SQL of the migrations `plan` undoes: errors stop the rollback
    /// before anything changes, as errors in up SQL stop a migrate. A fleet does not
    /// print each database's findings, and points at `lint` instead.
    private func lintDownSQL(of plan: [String], in files: [SQLMigrationFile], reporter: Reporter, world: CommandWorld) throws {
        let undone = Set(plan)
        let checked = files.filter { undone.contains($0.identifier) }
        guard !checked.isEmpty else { return }
        let layer = world.layer
        try RollbackLint.check(checked, context: layer.library.lintContext, suppressions: ProjectSettings.lintSuppressions(in: world), reporter: reporter,
                               listedBy: world.fleet == nil ? nil : "\(layer.commandName) lint --migrations \(connection.migrations.directory)")
    }

    package func fleetResult(_ report: RollbackDocument) -> String {
        report.rolledBack.isEmpty ? "nothing to roll back"
            : "rolled back \(report.rolledBack.count) migration\(report.rolledBack.count == 1 ? "" : "s")" + (report.backup.map { "; backup: \($0)" } ?? "")
    }
}

