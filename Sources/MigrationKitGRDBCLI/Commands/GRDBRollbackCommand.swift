import ArgumentParser
import Foundation
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
        var runner = try GRDBCommandSupport.runner(connection.migrations, reporter: reporter)
        let steps = RolledBackSteps()
        runner.observer = { event in
            if case .didRollback(let identifier, let duration) = event {
                steps.append(.init(identifier: identifier, durationMs: duration.wholeMilliseconds))
                reporter.line("Rolled back \(identifier) (\(duration.humanReadable))")
            }
        }
        let database = try GRDBDatabaseOpener.open(connection, access: .change, reporter: reporter)
        let start = ContinuousClock.now
        let rolledBack = try (scope.target.map { try runner.rollbackMigrations(in: database.writer, to: $0) }
            ?? runner.rollbackMigrations(in: database.writer, steps: scope.latestCount)).identifiers
        let duration = ContinuousClock.now - start
        reporter.line(rolledBack.isEmpty
            ? "Nothing to roll back."
            : "Rolled back \(rolledBack.count) migration\(rolledBack.count == 1 ? "" : "s") in \(duration.humanReadable); verification passed.")
        try reporter.document(RollbackDocument(
            database: database.path,
            backup: nil,
            rolledBack: steps.all,
            durationMs: duration.wholeMilliseconds))
    }
}

/// The steps rolled back so far, as the runner's observer reports them.
private final class RolledBackSteps: @unchecked Sendable {
    private let lock = NSLock()
    private var steps: [MigrateDocument.Step] = []

    func append(_ step: MigrateDocument.Step) {
        lock.withLock { steps.append(step) }
    }

    var all: [MigrateDocument.Step] { lock.withLock { steps } }
}
