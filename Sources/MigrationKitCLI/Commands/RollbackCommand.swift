import ArgumentParser
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct RollbackCommand: UsesProjectConnectionAndBackup, FleetCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Undo the latest applied migrations with their down SQL, then verify.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") var fleet: FleetOptions

    @OptionGroup var scope: RollbackScopeOptions

    @Option(name: .customLong("accept-modified"), help: ArgumentHelp("Roll back a migration edited since it was applied, with its edited down SQL (repeatable).", valueName: "id"))
    var acceptModified: [String] = []

    var fleetVerb: String { "Rolling back" }

    /// A fleet rolls back to a migration, never by a count: run again after a failure
    /// or Ctrl-C, `--steps` would roll back the finished databases once more.
    func validateFleet() throws {
        if scope.target == nil {
            throw CLIError(.usage, "Over several databases, rollback takes --to ID (the migration to go back to), not --steps: a second run after a failure or Ctrl-C then rolls back nothing twice.")
        }
    }

    func runOnDatabase(reporter: Reporter) throws -> RollbackDocument {
        var runner = try CommandSupport.runner(connection.migrations, reporter: reporter)
        let journal = CLIContext.journal
        runner.observer = { event in
            journal.record(event)
            if case .didRollback(let identifier, let duration) = event {
                reporter.line("Rolled back \(identifier) (\(duration.humanReadable))")
            }
        }
        let writer = try CommandSupport.openWriter(connection, access: .change, reporter: reporter)
        // Everything the rollback would refuse for is checked before the backup, so a
        // refused rollback writes nothing (and prunes no older backup).
        let accepted = Set(acceptModified)
        let plan = try scope.target.map { try runner.rollbackPlan(in: writer, to: $0, acceptModified: accepted) }
            ?? runner.rollbackPlan(in: writer, steps: scope.latestCount, acceptModified: accepted)
        var backupPath: String?
        if !backup.skip, !plan.isEmpty {
            backupPath = try backup.create(of: writer)
            reporter.line("Backup: \(backupPath ?? "")")
        }
        let report = try scope.target.map { try runner.rollbackMigrations(in: writer, to: $0, acceptModified: accepted) }
            ?? runner.rollbackMigrations(in: writer, steps: scope.latestCount, acceptModified: accepted)
        if let orphans = report.preexistingForeignKeyViolations { reporter.warning(orphans.preexistingWarning) }
        reporter.line(report.steps.isEmpty
            ? "Nothing to roll back."
            : "Rolled back \(report.steps.count) migration\(report.steps.count == 1 ? "" : "s") in \(report.duration.humanReadable); verification passed.")
        return RollbackDocument(
            database: writer.path,
            databaseName: CommandSupport.databaseName,
            backup: backupPath,
            rolledBack: report.steps.map { .init(identifier: $0.identifier, durationMs: $0.duration.wholeMilliseconds) },
            durationMs: report.duration.wholeMilliseconds)
    }

    func fleetResult(_ report: RollbackDocument) -> String {
        report.rolledBack.isEmpty ? "nothing to roll back"
            : "rolled back \(report.rolledBack.count) migration\(report.rolledBack.count == 1 ? "" : "s")" + (report.backup.map { "; backup: \($0)" } ?? "")
    }
}

