import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles

struct BaselineCommand: UsesProjectConnection, FleetCommand {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Record migrations up to --to as applied without running them, for a database made before MigrationKit managed it.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") package var fleet: FleetOptions

    @Option(name: .customLong("to"), help: ArgumentHelp("The last migration the database already reflects: its identifier, or the version its file carries (the number another tool recorded).", valueName: "id"))
    var target: String

    @Flag(name: .customLong("skip-schema-proof"), help: "Record the migrations even when the database's schema is not what they make (a database no migration has touched yet).")
    var skipSchemaProof = false

    @Flag(name: .customLong("dry-run"), help: "Prove the schema and say what would be recorded, and write nothing.")
    package var dryRun = false

    var fleetVerb: String { "Baselining" }

    package func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> BaselineDocument {
        let migrations = try LoadedMigrations.load(connection.migrations, reporter: reporter, in: world).migrations
        let target = try Self.resolve(self.target, in: migrations)
        // A dry run only reads: it proves what a baseline would and records nothing.
        let session = try MigrationSession.open(connection, migrations: migrations, access: dryRun ? .inspect : .change, reporter: reporter, in: world)
        let database = session
        try refuseUnsafeBaseline(of: session, migrations: migrations, target: target)
        let recorded = try session.baseline(upTo: target, dryRun: dryRun)
        for identifier in recorded {
            reporter.line(dryRun ? "Would baseline \(identifier) (record it as applied, not run)" : "Baselined \(identifier) (recorded as applied, not run)")
        }
        let count = "\(recorded.count) migration\(recorded.count == 1 ? "" : "s")"
        reporter.line(recorded.isEmpty
            ? "Nothing to record: every migration up to \(target) is already applied."
            : dryRun ? "Would record \(count) as applied; dry run: nothing was written."
            : "Recorded \(count) as applied; `migrate` will apply only later ones.")
        return BaselineDocument(database: database.path, databaseName: world.databaseName, baselined: recorded, dryRun: dryRun)
    }

    /// `--to` as a migration: an identifier, or the version one file carries (what another
    /// tool's ledger records, `20260728120000` or `3`), refused naming them when several
    /// carry it.
    static func resolve(_ target: String, in migrations: CommandMigrations) throws -> String {
        guard (try? migrations.index(ofTarget: target)) == nil else { return target }
        let carrying = migrations.identifiers(carryingVersion: target)
        if carrying.count > 1 {
            throw CLIError(.badOptionValue, "--to \(target) is the version of \(carrying.count) migrations (\(carrying.joined(separator: ", "))); give --to the identifier of the one the database reflects. Nothing was recorded.")
        }
        return carrying.first ?? target
    }

    /// What a baseline must not do, refused before anything is written (Flyway refuses
    /// a baseline on a non-empty history for the first reason):
    /// - record steps as applied on a damaged database: every page must read
    ///   (`DatabaseChecks.everyPageReads`), else exit 10 as every command says damage;
    /// - record steps a managed database (its ledger names applied steps) has not run
    ///   and whose schema it does not have: its schema must be what the steps up to
    ///   the target make (drift's replay, `SchemaDrift`), else exit 7 naming the steps
    ///   and the first difference;
    /// - record steps as applied on a database no migration has touched yet (no applied
    ///   step) whose schema is not what they make: else exit 7 naming the first
    ///   difference, unless `--skip-schema-proof` takes it as it is. Other tools' ledger
    ///   tables are left out of the comparison (`SchemaDump`).
    private func refuseUnsafeBaseline(of session: MigrationSession, migrations: CommandMigrations, target: String) throws {
        let database = session
        let pages = try database.read { DatabaseChecks.everyPageReads($0) }
        guard pages.passed else {
            throw CLIError(.damaged, "\(database.path): The database is damaged (\(pages.name): \(pages.detail)), so nothing was recorded; run `verify` to see which pages, and restore it from a backup.")
        }
        let status = try session.status()
        let targetIndex = try migrations.index(ofTarget: target)
        let unrun = migrations.identifiers.prefix(targetIndex + 1).filter { status.pending.contains($0) }
        guard !unrun.isEmpty, !(status.applied.isEmpty && skipSchemaProof) else { return }
        let differences: [SchemaDifference]
        do {
            differences = try SchemaDrift.differences(of: database, upTo: target)
        } catch SchemaDrift.Refusal.replayFailed(let failure) {
            throw CLIError(.migrationsDoNotMakeSchema, "\(database.path): \(failure) Nothing was recorded\(status.applied.isEmpty ? "; pass --skip-schema-proof to record the migrations all the same" : "").")
        }
        guard let first = differences.first else { return }
        let more = differences.count > 1 ? " and \(differences.count - 1) more" : ""
        guard !status.applied.isEmpty else {
            throw CLIError(.migrationsDoNotMakeSchema, "\(database.path): Its schema is not what the migrations up to \(target) make (\(first.summary)\(more)), so recording them as applied would be wrong. Nothing was recorded; give --to the last migration the database reflects, or pass --skip-schema-proof to record them all the same.")
        }
        throw CLIError(.migrationsDoNotMakeSchema, "\(database.path): The database is managed (its latest applied migration is \(status.applied.last ?? "")), and its schema is not what the migrations up to \(target) make (\(first.summary)\(more)): recording \(unrun.joined(separator: ", ")) as applied without running \(unrun.count == 1 ? "it" : "them") would leave \(unrun.count == 1 ? "it" : "them") undone. Nothing was recorded; run `migrate --to \(target)` to apply \(unrun.count == 1 ? "it" : "them").")
    }

    package func fleetResult(_ report: BaselineDocument) -> String {
        report.baselined.isEmpty ? "nothing to record"
            : "\(report.dryRun ? "would record" : "recorded") \(report.baselined.count) migration\(report.baselined.count == 1 ? "" : "s") as applied"
    }
}

struct BaselineDocument: Encodable {
    package let database: String
    @AlwaysPresent package var databaseName: String?
    /// The migrations recorded as applied (that would be, in a dry run), in order.
    let baselined: [String]
    package let dryRun: Bool
}
