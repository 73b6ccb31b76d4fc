import ArgumentParser
import Foundation
import MigrationKit
import MigrationKitFiles
import MigrationKitKeys

/// `adopt`: takes over a database another migration tool migrated. Reads that tool's
/// ledger, maps what it recorded to the folder's migrations by version, proves the schema
/// is what they make, and records them in MigrationKit's ledger and history in one
/// transaction (the runner's `adopt`, `OtherToolLedger`).
struct AdoptCommand: UsesProjectConnection, FleetCommand {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "adopt",
        abstract: "Take over a database another tool migrated: record the migrations its ledger says it applied, after proving the schema is what they make.",
        discussion: "Reads the ledger of golang-migrate, dbmate, sqlx, diesel, goose, Flyway, Prisma, Drizzle, refinery, Cloudflare D1, sql-migrate, Liquibase, Atlas or yoyo, or a PRAGMA user_version ladder, maps each version it recorded to the migration file that carries it, and refuses, naming each, a dirty or failed record, a version no file carries (a Flyway Java or Kotlin migration's too, unless --accept-code-migrations), a file whose checksum differs from the one recorded, and a database MigrationKit manages already. The migrations are replayed on an empty scratch database and its schema compared with the database's; then they are recorded as applied, in one transaction. The other tool's ledger stays as it was unless --retire-ledger drops it in that transaction.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") package var fleet: FleetOptions

    @Option(name: .customLong("from"), help: ArgumentHelp("The tool whose ledger to read: golang-migrate, dbmate, sqlx, diesel, goose, flyway, prisma, drizzle, refinery, d1, sql-migrate, liquibase, atlas, yoyo or user-version. Found in the database when omitted.", valueName: "tool"))
    package var from: String?

    @Flag(name: .customLong("dry-run"), help: "Say what would be recorded, and write nothing.")
    package var dryRun = false

    @Flag(name: .customLong("retire-ledger"), help: "Drop the other tool's ledger (or set user_version to 0) in the same transaction.")
    var retireLedger = false

    @Flag(name: .customLong("yes"), help: "Confirm --retire-ledger without a prompt.")
    var yes = false

    @Flag(name: .customLong("accept-code-migrations"), help: "Adopt past versions the other tool ran as Java or Kotlin code that no file carries (Flyway's JDBC rows), for databases none of which is older than them.")
    var acceptCodeMigrations = false

    var fleetVerb: String { "Adopting" }

    package func validate() throws {
        if let from, OtherTool(name: from) == nil {
            throw ValidationError("--from takes \(OtherTool.all.map(\.name).joined(separator: ", ")), not \"\(from)\".")
        }
        if yes && !retireLedger { throw ValidationError("--yes only confirms --retire-ledger.") }
    }

    package func validateFleet(in world: CommandWorld) throws {
        if retireLedger && !yes && !dryRun {
            throw CLIError(.notConfirmed, "--retire-ledger drops every database's other ledger with no prompt in a fleet: pass --yes to confirm it. Nothing was changed.")
        }
    }

    package func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> AdoptDocument {
        let migrations = try LoadedMigrations.load(connection.migrations, reporter: reporter, in: world).migrations
        let session = try MigrationSession.open(connection, migrations: migrations, access: .change, reporter: reporter, in: world)
        let tool = from.flatMap(OtherTool.init(name:))
        let adoption: OtherToolAdoption
        do {
            // A confirmation is asked only of a change that can be made: everything is
            // read, mapped and proven first.
            if retireLedger && !dryRun && !yes {
                try confirmRetiring(try session.adopt(from: tool, retiringLedger: true, dryRun: true, acceptingCodeMigrations: acceptCodeMigrations), in: world.surroundings)
            }
            adoption = try session.adopt(from: tool, retiringLedger: retireLedger, dryRun: dryRun, acceptingCodeMigrations: acceptCodeMigrations)
        } catch let error as OtherToolAdoptionError {
            throw CLIError(.adoptionRefused, Self.sentence(for: error, database: session.path))
        }
        let verb = adoption.isDryRun ? "Would record" : "Recorded"
        for identifier in adoption.identifiers { reporter.line("\(adoption.isDryRun ? "Would adopt" : "Adopted") \(identifier)") }
        for script in adoption.repeatables {
            reporter.note("Flyway's repeatable migration \(script) is not run by MigrationKit; what it made was compared as the rest of the schema.")
        }
        let from = adoption.tool == .userVersion ? "the `PRAGMA user_version` ladder (at \(adoption.lastVersion ?? "0"))"
            : "\(adoption.tool.displayName)'s ledger (last version \(adoption.lastVersion ?? "none"))"
        reporter.line("\(verb) \(adoption.identifiers.count) migration\(adoption.identifiers.count == 1 ? "" : "s") from \(from) as applied; the schema is what they make.")
        if !adoption.retired.isEmpty {
            reporter.line(adoption.isDryRun ? "Would retire \(adoption.retired.joined(separator: ", ")) in the same transaction."
                : "Retired \(adoption.retired.joined(separator: ", ")) in the same transaction.")
        } else if adoption.tool != .userVersion {
            reporter.line("\(adoption.tool.displayName)'s ledger \(adoption.isDryRun ? "would stay" : "stays") as it was; drift and diff leave it out.")
        }
        if adoption.isDryRun { reporter.line("Dry run: nothing was written.") }
        return AdoptDocument(database: session.path, databaseName: world.databaseName, tool: adoption.tool.name,
                             lastVersion: adoption.lastVersion, adopted: adoption.identifiers, retired: adoption.retired, dryRun: adoption.isDryRun)
    }

    /// Says what --retire-ledger drops, then asks on a terminal (the command's standard
    /// input) or requires --yes.
    private func confirmRetiring(_ plan: OtherToolAdoption, in surroundings: ProcessSurroundings) throws {
        let what = plan.retired.joined(separator: ", ")
        try surroundings.confirm("Drop \(what), \(plan.tool.displayName)'s record, once its migrations are adopted?", typing: "retire",
                                 refusal: "Refusing to retire \(what) without confirmation: pass --yes, or run on a terminal to be asked. Nothing was changed.")
    }

    /// Every problem, in one sentence: the database, each problem, and that nothing
    /// was written.
    package static func sentence(for error: OtherToolAdoptionError, database: String) -> String {
        "\(database) cannot be adopted: \(error.problems.map { $0.sentence(namingToolsWith: "--from", codeMigrationsOption: "--accept-code-migrations") }.joined(separator: "; ")). Nothing was recorded."
    }

    package func fleetResult(_ report: AdoptDocument) -> String {
        "\(report.dryRun ? "would adopt" : "adopted") \(report.adopted.count) migration\(report.adopted.count == 1 ? "" : "s") from \(report.tool)"
    }
}

/// What `adopt --json` prints.
struct AdoptDocument: Encodable {
    package let database: String
    @AlwaysPresent package var databaseName: String?
    /// The tool whose ledger was read, as `--from` names it.
    let tool: String
    /// The latest version it recorded; null when it recorded none.
    @AlwaysPresent package var lastVersion: String?
    /// The migrations recorded as applied (that would be, in a dry run), in order.
    let adopted: [String]
    /// The other tool's ledger tables dropped (or `user_version`), when retired.
    let retired: [String]
    package let dryRun: Bool
}
