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

    var fleetVerb: String { "Rolling back" }

    /// A fleet rolls back to a migration, never by a count: run again after a failure
    /// or Ctrl-C, `--steps` would roll back the finished databases once more.
    package func validateFleet(in world: CommandWorld) throws {
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
        let database = session
        // Everything the rollback would refuse for is checked before the backup, so a
        // refused rollback writes nothing (and prunes no older backup).
        let accepted = Set(acceptModified)
        let undone: RollbackSelection = scope.target.map { .after($0) } ?? .latest(scope.latestCount)
        let plan = try database.rollbackPlan(undone, acceptModified: accepted)
        if !noLint, let files = loaded.files { try lintDownSQL(of: plan, in: files, reporter: reporter, world: world) }
        var backupPath: String?
        if !backup.skip, !plan.isEmpty {
            backupPath = try session.backup(backup, in: world)
            reporter.line("Backup: \(backupPath ?? "")")
        }
        let report = try session.rollback(undone, acceptModified: accepted)
        if let orphans = report.preexistingForeignKeyViolations { reporter.warning(orphans.preexistingWarning) }
        reporter.line(report.steps.isEmpty
            ? "Nothing to roll back."
            : "Rolled back \(report.steps.count) migration\(report.steps.count == 1 ? "" : "s") in \(report.duration.humanReadable); verification passed.")
        if let notChecked = world.appExtensionAdvice.warning(notVerifying: report.unmetNeeds) { reporter.warning(notChecked) }
        return RollbackDocument(
            database: database.path,
            databaseName: world.databaseName,
            backup: backupPath,
            rolledBack: report.steps.map { .init(identifier: $0.identifier, durationMs: $0.duration.wholeMilliseconds) },
            durationMs: report.duration.wholeMilliseconds)
    }

    /// Lints the down SQL of the migrations `plan` undoes: errors stop the rollback
    /// before anything changes, as errors in up SQL stop a migrate. A fleet does not
    /// print each database's findings, and points at `lint` instead.
    private func lintDownSQL(of plan: [String], in files: [SQLMigrationFile], reporter: Reporter, world: CommandWorld) throws {
        let undone = Set(plan)
        let checked = files.filter { undone.contains($0.identifier) }
        guard !checked.isEmpty else { return }
        let layer = world.layer
        try RollbackLint.check(checked, context: layer.linkedLintContext, suppressions: ProjectSettings.lintSuppressions(in: world), reporter: reporter,
                               listedBy: world.fleet == nil ? nil : "\(layer.commandName) lint --migrations \(connection.migrations.directory)")
    }

    package func fleetResult(_ report: RollbackDocument) -> String {
        report.rolledBack.isEmpty ? "nothing to roll back"
            : "rolled back \(report.rolledBack.count) migration\(report.rolledBack.count == 1 ? "" : "s")" + (report.backup.map { "; backup: \($0)" } ?? "")
    }
}

