import ArgumentParser
import MigrationKit
import MigrationKitCommands
import MigrationKitSQLCipher

struct LintCommand: UsesProjectConnection, PrintsOutput {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check migration files for SQL that fails in the field: errors block migrate, warnings are printed.",
        discussion: "With --db-path, only pending migrations are checked, against what that database holds (row counts, views).")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var minimum: MinimumSQLiteOptions
    @OptionGroup var output: OutputOptions

    /// The project's migrations folder, but its database only when --db-path asks for
    /// it: `lint` in a project folder needs no key.
    mutating func applyProjectSettings() throws -> ProjectSettings {
        try applyProjectSettings(databaseOnlyWhenAsked: true)
    }

    func run() throws {
        let reporter = Reporter(output)
        // With --db-path, opening the database says it.
        if connection.dbPath == nil { CommandSupport.warnIfOnCommandLine(connection.key, reporter: reporter) }
        let directory = SQLMigrationDirectory(path: connection.migrations.directory)
        let files = try directory.load()
        for lookalike in directory.ignoredLookalikes() { reporter.warning(lookalike) }
        var checked = files
        var context = LintContext.linkedLibrary
        if connection.dbPath != nil {
            let writer = try CommandSupport.openWriter(connection, access: .inspect, reporter: reporter)
            let runner = try SQLCipherMigrationRunner(steps: files.map { SQLCipherMigrationStep(file: $0) })
            let pending = Set(try runner.migrationStatus(in: writer).pending)
            checked = files.filter { pending.contains($0.identifier) }
            context = try writer.read { try LintContext.reading($0, for: checked) }
        }
        let findings = MigrationLinter(context: minimum.applied(to: context)).lint(checked)
        LintPrinter.print(findings, reporter: reporter, asWarnings: false)
        let errors = findings.filter { $0.severity == .error }.count
        reporter.line("\(checked.count) migration\(checked.count == 1 ? "" : "s") checked: \(errors) error\(errors == 1 ? "" : "s"), \(findings.count - errors) warning\(findings.count - errors == 1 ? "" : "s").")
        try reporter.document(LintDocument(findings: findings, errorCount: errors, warningCount: findings.count - errors))
        if errors > 0 { throw ExitCode(CLIExitCode.migrationFailed.rawValue) }
    }
}

struct LintDocument: Encodable {
    let findings: [LintFinding]
    let errorCount: Int
    let warningCount: Int
}
