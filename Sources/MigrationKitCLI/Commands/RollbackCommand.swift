import ArgumentParser
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct RollbackCommand: UsesProjectConnectionAndBackup {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Undo the latest applied migrations with their down SQL, then verify.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("steps"), help: ArgumentHelp("How many migrations to roll back (default 1).", valueName: "n"))
    var steps: Int?

    @Option(name: .customLong("to"), help: ArgumentHelp("Roll back every migration after this one.", valueName: "id"))
    var target: String?

    func validate() throws {
        if steps != nil && target != nil {
            throw ValidationError("Give --steps or --to, not both.")
        }
        if let steps, steps < 0 {
            throw ValidationError("--steps must be zero or more.")
        }
    }

    func run() throws {
        let reporter = Reporter(output)
        var runner = try CommandSupport.runner(connection.migrations, reporter: reporter)
        runner.observer = { event in
            if case .didRollback(let identifier, let duration) = event {
                reporter.line("Rolled back \(identifier) (\(duration.humanReadable))")
            }
        }
        let writer = try CommandSupport.openWriter(connection, access: .change, reporter: reporter)
        // Everything the rollback would refuse for is checked before the backup, so a
        // refused rollback writes nothing (and prunes no older backup).
        let plan = try target.map { try runner.rollbackPlan(in: writer, to: $0) } ?? runner.rollbackPlan(in: writer, steps: steps ?? 1)
        var backupPath: String?
        if !backup.skip, !plan.isEmpty {
            backupPath = try backup.create(of: writer)
            reporter.line("Backup: \(backupPath ?? "")")
        }
        let report = try target.map { try runner.rollbackMigrations(in: writer, to: $0) }
            ?? runner.rollbackMigrations(in: writer, steps: steps ?? 1)
        if let orphans = report.preexistingForeignKeyViolations { reporter.warning(orphans.preexistingWarning) }
        reporter.line(report.steps.isEmpty
            ? "Nothing to roll back."
            : "Rolled back \(report.steps.count) migration\(report.steps.count == 1 ? "" : "s") in \(report.duration.humanReadable); verification passed.")
        try reporter.document(RollbackDocument(
            database: writer.path,
            backup: backupPath,
            rolledBack: report.steps.map { .init(identifier: $0.identifier, durationMs: $0.duration.wholeMilliseconds) },
            durationMs: report.duration.wholeMilliseconds))
    }
}

