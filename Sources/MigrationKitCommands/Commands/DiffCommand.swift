import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

/// `diff`, two jobs on one comparison of canonical schemas:
/// - drift (no `--to`): the database's schema against what its applied migrations make,
///   for deploy scripts and CI: exit 0 when they agree, 3 with each difference when not;
/// - `--to schema.sql`: the migration from the current schema (the database's, or the
///   migrations folder's) to the one the file makes, proven on scratch copies first
///   (`SchemaMigrationProof`), printed or written as the next migration file.
/// Reads the database only.
package struct DiffCommand: UsesProjectConnection, FleetCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare the database's schema with what its applied migrations make (drift: exit 0 when they agree, 3 when not), or write the migration to the schema a file makes (--to).",
        discussion: "Everything runs on scratch databases (encrypted with a random key, deleted afterwards); the database itself is only read. Objects are compared in their canonical SQL (as schema-dump prints it), so spacing, quoting and comments never count (names' spelling does). With --to, the migration is applied and rolled back on a scratch copy of the current schema, and shown only if it gives the wanted schema and then the current one back.")

    @OptionGroup package var connection: ConnectionOptions
    @Option(name: .customLong("to"), help: ArgumentHelp("A file of CREATE statements (as schema-dump prints them), or a database (plaintext, or encrypted with the same key): write the migration from the current schema to the one it makes. The current schema is --db-path's, or without one what the migrations folder makes.", valueName: "schema.sql"))
    var desiredSchemaFile: String?
    @Option(name: .customLong("write"), help: ArgumentHelp("With --to: write the migration as the folder's next migration file, named as `new` names it.", valueName: "name"))
    package var writeName: String?
    @Flag(name: .customLong("allow-drop"), help: "With --to: allow changes that lose rows or values (dropping a table or column, narrowing a type, a NOT NULL column without a default on a table with rows).")
    package var allowDrop = false
    @OptionGroup package var minimum: MinimumSQLiteOptions
    @OptionGroup package var output: OutputOptions
    @OptionGroup(title: "Fleet options") package var fleet: FleetOptions

    package var fleetVerb: String { "Comparing" }

    /// With --to, the project's database only when --db-path asks for it: the folder's
    /// schema needs no key.
    package mutating func applyProjectSettings(in world: CommandWorld) throws -> ProjectSettings {
        try applyProjectSettings(databaseOnlyWhenAsked: desiredSchemaFile != nil, in: world)
    }

    package func validate() throws {
        if desiredSchemaFile == nil, writeName != nil { throw ValidationError("--write writes the migration that --to asks for; give --to schema.sql.") }
        if desiredSchemaFile == nil, allowDrop { throw ValidationError("--allow-drop is for the migration that --to writes; give --to schema.sql.") }
        if desiredSchemaFile == nil, minimum.minimum != nil { throw ValidationError("--min-sqlite judges the migration that --to writes; give --to schema.sql.") }
        if let writeName, MigrationNumbering.slug(writeName).isEmpty {
            throw ValidationError("--write needs a name with at least one letter or digit, e.g. `add_genre`.")
        }
    }

    package func run(in world: CommandWorld) throws {
        let reporter = Reporter(output, on: world.surroundings.console)
        if let desiredSchemaFile { return try world.layer.writeSchemaMigration(self, to: desiredSchemaFile, reporter: reporter, in: world) }
        try runOnEachDatabase(reporter: reporter, in: world)
    }

    package func validateFleet(in world: CommandWorld) throws {
        if desiredSchemaFile != nil { throw CLIError(.conflictingOptions, "--to writes one migration from one schema; give one --db-path (or none, for the migrations folder's schema).") }
    }

    /// Drift: the database's schema against what its applied migrations make.
    package func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> DiffDocument {
        let migrations = try LoadedMigrations.load(connection.migrations, reporter: reporter, in: world).migrations
        let session = try MigrationSession.open(connection, migrations: migrations, access: .inspect, reporter: reporter, in: world)
        let database = session
        let report: SchemaDrift.Report
        do {
            report = try SchemaDrift.check(session)
        } catch let refusal as SchemaDrift.Refusal {
            throw CLIError(.migrationsDoNotMakeSchema, Self.sentence(for: refusal, database: database.path))
        }
        try Interruption.check()
        for identifier in report.modified {
            reporter.warning("\(identifier) was edited after it was applied; the schema it is compared with comes from the file as it is now.")
        }
        let made = "what its \(report.applied.count) applied migration\(report.applied.count == 1 ? "" : "s") make\(report.applied.count == 1 ? "s" : "")"
        if report.differences.isEmpty {
            reporter.line("No drift: the schema is \(made).")
        } else {
            reporter.line("Drift: the schema differs from \(made); put each change in a migration, or undo it:")
            for difference in report.differences { reporter.line("  \(difference.summary)") }
        }
        return DiffDocument(database: database.path, databaseName: world.databaseName,
                            applied: report.applied, drift: !report.differences.isEmpty,
                            differences: report.differences)
    }

    /// The differences are the message (and the JSON document); the code says drift.
    package func finishAlone(_ report: DiffDocument, reporter: Reporter) throws {
        if report.drift { throw ExitCodeDecision.ending(with: .drift) }
    }

    package func failure(in report: DiffDocument) -> ErrorPresentation? {
        guard report.drift else { return nil }
        return ErrorPresentation(row: ExitCodeDecision.row(for: .drift), message: "drift: " + report.differences.map(\.summary).joined(separator: "; "))
    }

    package func fleetResult(_ report: DiffDocument) -> String {
        "no drift (\(report.applied.count) applied migration\(report.applied.count == 1 ? "" : "s"))"
    }

    /// A replay that failed happened on a scratch database, not on the user's: said
    /// first, then what would make the migrations replay (docs/commands.md#diff).
    private static func sentence(for failure: SchemaDrift.Refusal.ReplayFailure, database: String) -> String {
        let what = "\(database): diff replays the applied migrations on an empty scratch database to make the schema they should give, "
            + "and \(failure.failure.identifier) failed there (\(failure.place): \(failure.reason)); \(database) itself was only read and is unchanged. "
        if failure.edited {
            return what + "\(failure.failure.identifier) was edited after it was applied, and fails as it is now: restore the applied version of the file, then run diff again."
        }
        return what + "The migrations do not make its schema from nothing, as when another app made its tables: give the folder a first migration that creates them as that app did, "
            + "record it as applied with `baseline --to \(failure.latestApplied)` (docs/commands.md#baseline), and run diff again."
    }

    private static func sentence(for refusal: SchemaDrift.Refusal, database: String) -> String {
        switch refusal {
        case .unknownApplied(let identifiers):
            return "\(database) has applied migrations that --migrations does not have (\(identifiers.joined(separator: ", "))), so their schema cannot be made; point --migrations at the folder that migrated it."
        case .pendingBeforeLatestApplied(let pending, let latest):
            return "\(database) has migrations before its latest applied one (\(latest)) that are not applied (\(pending.joined(separator: ", "))), so the migrations in order do not make it; apply them (migrate --allow-out-of-order) and run diff again."
        case .replayFailed(let failure):
            return sentence(for: failure, database: database)
        case .desiredSchemaFails, .notSchemaStatements, .destructive, .migrationFails, .notExpressed, .notReversed, .lintErrors:
            // The proof of a migration to a desired schema (`diff --to`), not drift's.
            return "\(database): \(refusal)"
        }
    }
}

/// What `diff --json` prints.
package struct DiffDocument: Encodable {
    let database: String
    @AlwaysPresent var databaseName: String?
    /// The applied migrations the expected schema was made from.
    let applied: [String]
    let drift: Bool
    let differences: [SchemaDifference]
}
