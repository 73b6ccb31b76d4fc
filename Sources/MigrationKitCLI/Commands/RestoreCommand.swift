import ArgumentParser
import MigrationKitSQLCipher

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup back in place of the database, after proving it opens with the key.",
        discussion: "The current database is itself backed up first (unless --no-backup), so a restore can be undone. Stop the app first.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backup: BackupOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("from"), help: ArgumentHelp("The backup file to restore.", valueName: "file"))
    var source: String

    func run() throws {
        let reporter = Reporter(output)
        let settings = try CommandSupport.connectionSettings(connection, access: .change, reporter: reporter)
        // Prove the backup first: a refused restore changes nothing, not even a safety copy.
        try DatabaseBackup.prove(source, key: settings.key, configuration: settings.configuration)
        var safetyCopy: String?
        if !backup.skip {
            // Best effort: a database too damaged to open cannot be backed up, and is
            // what a restore is for.
            if let current = try? CLIContext.host.openWriter(settings) {
                safetyCopy = try backup.create(of: current)
            }
        }
        try DatabaseBackup.restore(from: source, to: settings.path, key: settings.key, configuration: settings.configuration)
        reporter.line("Restored \(settings.path) from \(source).")
        if let safetyCopy { reporter.line("The database as it was before the restore: \(safetyCopy)") }
        try reporter.document(["database": settings.path, "restoredFrom": source, "backup": safetyCopy ?? ""])
    }
}

struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Record migrations up to --to as applied without running them, for a database made before MigrationKit managed it.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("to"), help: ArgumentHelp("The last migration the database already reflects.", valueName: "id"))
    var target: String

    func run() throws {
        let reporter = Reporter(output)
        let runner = try CommandSupport.runner(connection.migrations)
        let writer = try CommandSupport.openWriter(connection, access: .change, reporter: reporter)
        let recorded = try runner.baseline(in: writer, upTo: target)
        for identifier in recorded { reporter.line("Baselined \(identifier) (recorded as applied, not run)") }
        reporter.line(recorded.isEmpty
            ? "Nothing to record: every migration up to \(target) is already applied."
            : "Recorded \(recorded.count) migration\(recorded.count == 1 ? "" : "s") as applied; `migrate` will apply only later ones.")
        try reporter.document(BaselineDocument(database: writer.path, baselined: recorded))
    }
}

struct BaselineDocument: Encodable {
    let database: String
    let baselined: [String]
}
