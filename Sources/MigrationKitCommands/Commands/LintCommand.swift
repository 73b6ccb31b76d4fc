import ArgumentParser
import MigrationKit
import MigrationKitFiles

package struct LintCommand: UsesProjectConnection, PrintsOutput {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check migration files for SQL that fails in the field: errors block migrate, warnings are printed.",
        discussion: "With --db-path, only pending migrations are checked, against what that database holds (row counts, views).")

    @OptionGroup package var connection: ConnectionOptions
    @OptionGroup package var minimum: MinimumSQLiteOptions
    @OptionGroup package var output: OutputOptions

    /// The project's migrations folder, but its database only when --db-path asks for
    /// it: `lint` in a project folder needs no key.
    package mutating func applyProjectSettings() throws -> ProjectSettings {
        try applyProjectSettings(databaseOnlyWhenAsked: true)
    }

    package func run() throws {
        let reporter = Reporter(output)
        // With --db-path, opening the database says it.
        if connection.dbPath == nil { CommandSupport.warnIfOnCommandLine(connection.key, reporter: reporter) }
        let directory = connection.migrations.folder
        let files = try directory.load()
        for lookalike in directory.ignoredLookalikes() { reporter.warning(lookalike) }
        var checked = files
        var context = CLIContext.layer.linkedLintContext
        if connection.dbPath != nil {
            let migrations = try CLIContext.layer.migrations(over: files, requiredIndexes: [])
            let database = try CommandSupport.openDatabase(connection, migrations: migrations, access: .inspect, reporter: reporter)
            let pending = Set(try database.migrationStatus().pending)
            checked = files.filter { pending.contains($0.identifier) }
            context = try database.lintContext(for: checked)
        }
        let findings = MigrationLinter(context: minimum.applied(to: context)).lint(checked)
        LintPrinter.print(findings, reporter: reporter, asWarnings: false)
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        let notes = findings.count - errors - warnings
        reporter.line("\(checked.count) migration\(checked.count == 1 ? "" : "s") checked: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
            + (notes == 0 ? "." : ", \(notes) note\(notes == 1 ? "" : "s")."))
        try reporter.document(LintDocument(findings: findings, errorCount: errors, warningCount: warnings, noteCount: notes))
        if errors > 0 { throw ExitCodeDecision.ending(with: .lintErrors) }
    }
}

package struct LintDocument: Encodable {
    package let findings: [LintFinding]
    package let errorCount: Int
    package let warningCount: Int
    package let noteCount: Int
}
