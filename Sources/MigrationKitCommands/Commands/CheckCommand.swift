import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

struct CheckCommand: ProjectConfigurable, PrintsOutput {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Prove a migrations folder before it ships, on scratch databases: fresh install, idempotence, every down undoing its up, and optionally an upgrade of a copy of a real older database.",
        discussion: "Touches nothing of yours: --from-database is opened read-only and copied. Its key comes from the key options.")

    @OptionGroup package var migrations: MigrationsOptions
    @OptionGroup(title: "Key options (for --from-database)", visibility: ConnectionOptions.encryptionVisibility) package var key: KeyOptions
    @OptionGroup(title: "Cipher options (for --from-database)", visibility: ConnectionOptions.encryptionVisibility) package var cipher: CipherOptions
    @OptionGroup package var minimum: MinimumSQLiteOptions
    @OptionGroup package var extensions: ExtensionOptions
    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("from-database"), help: ArgumentHelp("An older database (a real one, or a fixture) to upgrade a copy of.", valueName: "file"))
    var olderDatabase: String?

    /// The migrations folder, its layout, Flyway's placeholders and the app's extensions
    /// (the scratch databases need them as the real one does) as every command takes them
    /// (flags, then the environment, then the project file), and the project file's
    /// `[lint]` table: what `migrate` leaves unsaid, the lint check leaves unsaid too.
    /// The key options for `--from-database` stay flags only.
    package mutating func applyProjectSettings(in world: CommandWorld) throws -> ProjectSettings {
        var connection = try ConnectionOptions.parse([])
        connection.migrations = migrations
        connection.extensions = extensions
        var noBackup: BackupOptions? = nil
        let settings = try ProjectSettings.apply(to: &connection, backup: &noBackup, commandName: world.layer.commandName,
                                                 environment: world.surroundings.environment)
        migrations = connection.migrations
        extensions = connection.extensions
        return settings
    }

    package func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        // With --from-database, resolving its key says it.
        if olderDatabase == nil { key.warnIfOnCommandLine(reporter: reporter, in: world) }
        let loaded = try LoadedMigrations.load(migrations, reporter: reporter, in: world)
        let older = try olderDatabase.map {
            try OpenRequest.resolving(path: $0, key: key, cipher: cipher, lockTimeout: 10, access: .inspect, reporter: reporter, in: world)
        }
        let layer = world.layer
        var results: [RoundTripCheck.Result] = []
        if let files = loaded.files {
            // Every error counts, down SQL's too: the round trips run every down section.
            let report = MigrationLinter(context: minimum.applied(to: layer.library.lintContext),
                                         suppressions: ProjectSettings.lintSuppressions(in: world)).report(files)
            let findings = report.findings
            LintPrinter.printSuppressed(report.suppressed, reporter: reporter, asNotes: true)
            let errors = findings.filter { $0.severity == .error }
            let warnings = findings.filter { $0.severity == .warning }.count
            let suppressed = report.suppressed.isEmpty ? "" : ", \(report.suppressed.count) suppressed"
            results.append(RoundTripCheck.Result(
                name: "lint", passed: errors.isEmpty,
                detail: errors.isEmpty ? "no errors (\(warnings) warning\(warnings == 1 ? "" : "s")\(suppressed))" : errors.map(\.description).joined(separator: "; ")))
        }
        let allowed = Set((loaded.files ?? []).flatMap(\.rowChanges))
        results += try RoundTripCheck(migrations: loaded.migrations, allowedRowChanges: allowed, in: world).run(olderDatabase: older)
        // A check stopped by Ctrl-C failed nothing: say that, not a list of failures.
        try Interruption.check()
        for result in results {
            reporter.line("\(!result.notChecked.isEmpty ? "n/a   " : result.passed ? "ok    " : "FAILED") \(result.name): \(result.detail)")
        }
        let failures = results.filter { !$0.passed }.count
        let notChecked = results.filter { !$0.notChecked.isEmpty }
        if failures > 0 {
            reporter.line("\(failures) of \(results.count) checks failed.")
        } else if notChecked.isEmpty {
            reporter.line("All \(results.count) checks passed.")
        } else {
            let needs = notChecked.flatMap(\.notChecked).compactMap { need in
                AppExtensionNeed.Kind(rawValue: need.kind).map { AppExtensionNeed($0, need.name) }
            }
            reporter.line("Every check that could run passed; \(world.appExtensionAdvice.notChecked(notChecked.count, needing: needs, meaning: "which says nothing against the migrations")).")
        }
        try reporter.document(CheckDocument(passed: failures == 0, checks: results))
        // Checks that could not run are no failure (`ExitCodeDecision.exitCode(forChecks:)`).
        if failures > 0 { throw ExitCodeDecision.ending(with: .checksFailed) }
    }
}

struct CheckDocument: Encodable {
    let passed: Bool
    let checks: [RoundTripCheck.Result]
}
