import ArgumentParser
import MigrationKit
import MigrationKitFiles

struct LintCommand: UsesProjectConnection, PrintsOutput {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check migration files for SQL that fails in the field: errors block migrate, warnings are printed.",
        discussion: "With --db-path, only pending migrations are checked, against what that database holds (row counts, views). A comment `-- migrationkit:nolint RULE` silences RULE for the statement after it, `-- migrationkit:nolint-file RULE` for its file, and migrationkit.toml's [lint] table for every file or for files by pattern.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup package var minimum: MinimumSQLiteOptions
    @OptionGroup var output: OutputOptions

    @Flag(name: .customLong("show-suppressed"), help: "Also list the findings a suppression silenced, and which one (as --verbose does).")
    var showSuppressed = false

    /// The project's migrations folder, but its database only when --db-path asks for
    /// it: `lint` in a project folder needs no key.
    package mutating func applyProjectSettings(in world: CommandWorld) throws -> ProjectSettings {
        try applyProjectSettings(databaseOnlyWhenAsked: true, in: world)
    }

    package func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        // With --db-path, opening the database says it.
        if connection.dbPath == nil { connection.key.warnIfOnCommandLine(reporter: reporter, in: world) }
        let directory = connection.migrations.folder
        let files = try directory.load()
        for lookalike in directory.ignoredLookalikes() { reporter.warning(lookalike) }
        var checked = files
        var context = world.layer.library.lintContext
        if connection.dbPath != nil {
            let migrations = try world.layer.migrations(over: files, requiredIndexes: [])
            let session = try MigrationSession.open(connection, migrations: migrations, access: .inspect, reporter: reporter, in: world)
            checked = try session.pending(among: files)
            context = try session.lintContext(for: checked, linked: world.layer.library.lintContext)
        }
        let report = MigrationLinter(context: minimum.applied(to: context), suppressions: ProjectSettings.lintSuppressions(in: world)).report(checked)
        let findings = report.findings
        LintPrinter.print(findings, reporter: reporter, asWarnings: false)
        if showSuppressed || output.verbose { LintPrinter.printSuppressed(report.suppressed, reporter: reporter, asNotes: false) }
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        let notes = findings.count - errors - warnings
        let suppressed = report.suppressed.isEmpty ? ""
            : " (\(report.suppressed.count) suppressed\(showSuppressed || output.verbose ? "" : "; --show-suppressed lists them"))"
        reporter.line("\(checked.count) migration\(checked.count == 1 ? "" : "s") checked: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
            + (notes == 0 ? "" : ", \(notes) note\(notes == 1 ? "" : "s")") + "\(suppressed).")
        try reporter.document(LintDocument(findings: findings, errorCount: errors, warningCount: warnings, noteCount: notes, suppressed: report.suppressed))
        if errors > 0 { throw ExitCodeDecision.ending(with: .lintErrors) }
    }
}

struct LintDocument: Encodable {
    package let findings: [LintFinding]
    let errorCount: Int
    let warningCount: Int
    let noteCount: Int
    /// The findings a suppression silenced, each with `suppressedBy`; not counted above.
    package let suppressed: [SuppressedLintFinding]
}
