import ArgumentParser
import MigrationKit
import MigrationKitCommands
import MigrationKitGRDB

struct GRDBMigrateCommand: ParsableCommand, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending migrations, each in its own transaction, then verify the database.")

    @OptionGroup var connection: GRDBConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("to"), help: ArgumentHelp("Stop after this migration.", valueName: "id"))
    var target: String?

    @Option(name: .customLong("require-index"), help: ArgumentHelp("Fail verification unless this index exists (repeatable).", valueName: "table:index"))
    var requiredIndexes: [RequiredIndexSpec] = []

    @Flag(name: .customLong("no-lint"), help: "Skip the lint of pending migration files (its errors otherwise block the run).")
    var noLint = false

    func run() throws {
        let reporter = Reporter(output)
        let loaded = try GRDBCommandSupport.loadMigrations(connection.migrations, requiredIndexes: requiredIndexes, reporter: reporter)
        let runner = loaded.runner
        if let target { _ = try runner.registry.index(ofTarget: target) }
        let database = try GRDBDatabaseOpener.open(connection, access: .create, reporter: reporter)
        let start = ContinuousClock.now
        let applied: [String]
        do {
            let pending = try runner.migrationStatus(in: database.writer).pending
            if !noLint, let files = loaded.files {
                let pendingSet = Set(pending)
                let checked = files.filter { pendingSet.contains($0.identifier) }
                if !checked.isEmpty {
                    let context = try database.writer.read { try GRDBCommandSupport.lintContext($0, for: checked) }
                    try PendingLint(context: context).check(checked, reporter: reporter)
                }
            }
            if let target { try runner.migrate(in: database.writer, upTo: target) } else { try runner.migrate(in: database.writer) }
            let nowApplied = Set(try runner.appliedMigrations(in: database.writer))
            applied = pending.filter(nowApplied.contains)
        } catch {
            // A database this run created and kept nothing in is not left behind; one
            // whose steps committed before a failed verification is kept.
            if database.created, (try? runner.appliedMigrations(in: database.writer).isEmpty) ?? false {
                database.discardCreated()
            }
            throw error
        }
        let duration = ContinuousClock.now - start
        let durations = try runner.recordedDurations(in: database.writer)
        for identifier in applied {
            reporter.line("Applied \(identifier) (\((durations[identifier] ?? .zero).humanReadable))")
        }
        let verified = "verification passed (\(runner.verificationSummary.joined(separator: ", ")))"
        reporter.line(applied.isEmpty
            ? "Already up to date; \(verified)."
            : "Applied \(applied.count) migration\(applied.count == 1 ? "" : "s") in \(duration.humanReadable); \(verified).")
        try reporter.document(MigrateDocument(
            database: database.path,
            applied: applied.map { .init(identifier: $0, durationMs: (durations[$0] ?? .zero).wholeMilliseconds) },
            durationMs: duration.wholeMilliseconds,
            verification: "passed",
            checks: runner.verificationSummary,
            dryRun: false,
            schemaDiff: nil,
            backup: nil,
            adoptedChecksums: [],
            erased: nil))
    }
}
