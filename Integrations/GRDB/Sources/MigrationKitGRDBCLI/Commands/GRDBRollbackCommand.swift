import ArgumentParser
import MigrationKit
import MigrationKitCommands

struct GRDBRollbackCommand: ParsableCommand, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Undo the latest applied migrations with their down steps, then verify.")

    @OptionGroup var connection: GRDBConnectionOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup var scope: RollbackScopeOptions

    func run() throws {
        let reporter = Reporter(output)
        let runner = try GRDBCommandSupport.runner(connection.migrations, reporter: reporter)
        let database = try GRDBDatabaseOpener.open(connection, access: .change)
        let start = ContinuousClock.now
        let rolledBack = try GRDBCommandSupport.runningSteps {
            if let target = scope.target { return try runner.rollbackMigrations(in: database.writer, to: target) }
            return try runner.rollbackMigrations(in: database.writer, steps: scope.latestCount)
        }
        let duration = ContinuousClock.now - start
        for identifier in rolledBack { reporter.line("Rolled back \(identifier)") }
        reporter.line(rolledBack.isEmpty
            ? "Nothing to roll back."
            : "Rolled back \(rolledBack.count) migration\(rolledBack.count == 1 ? "" : "s") in \(duration.humanReadable); verification passed.")
        try reporter.document(RollbackDocument(
            database: database.path,
            backup: nil,
            // One transaction per step; GRDB's runner times the run, not each step.
            rolledBack: rolledBack.map { .init(identifier: $0, durationMs: 0) },
            durationMs: duration.wholeMilliseconds))
    }
}
