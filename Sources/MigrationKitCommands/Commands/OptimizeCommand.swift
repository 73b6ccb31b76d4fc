import ArgumentParser
import MigrationKit
import MigrationKitFiles

/// `optimize`: the query planner's statistics (`sqlite_stat1`) refreshed where SQLite
/// finds them missing or stale, as an app's `PRAGMA optimize` before it closes would,
/// under the change lock so that no migration runs beside it.
///
/// SQLite 3.46 and later judge every table (`PRAGMA optimize=0x10002`); earlier ones
/// judge only the tables the asking connection has queried, and this one has queried
/// none, so there every table is analyzed (`ANALYZE`). The tables it names are read back
/// from `sqlite_stat1`, before and after, never assumed from the statement run.
struct OptimizeCommand: UsesProjectConnection, FleetCommand {
    init() {}

    static let configuration = CommandConfiguration(
        commandName: "optimize",
        abstract: "Refresh the query planner's statistics where SQLite finds them missing or stale (PRAGMA optimize).")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Fleet options") package var fleet: FleetOptions

    var fleetVerb: String { "Optimizing" }

    package func runOnDatabase(reporter: Reporter, in world: CommandWorld) throws -> OptimizeDocument {
        let session = try MigrationSession.open(connection, migrations: try world.layer.hostMigrationsOrNone(), access: .change,
                                                reporter: reporter, in: world)
        let refreshed = try session.write { db in
            let before = try Self.statistics(in: db)
            let version = try db.textColumn(sql: "SELECT sqlite_version()").first.flatMap(SQLiteVersion.init) ?? SQLiteVersion(3, 0, 0)
            try db.execute(BookkeepingStatement(version >= .optimizeJudgesEveryTable ? "PRAGMA optimize=0x10002" : "ANALYZE"))
            let after = try Self.statistics(in: db)
            return Set(Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.map(\.table)).sorted()
        }
        reporter.line(refreshed.isEmpty
            ? "The query planner's statistics of \(session.path) are current; nothing was changed."
            : "Refreshed the query planner's statistics of \(refreshed.count) table\(refreshed.count == 1 ? "" : "s") in \(session.path): \(refreshed.joined(separator: ", ")).")
        return OptimizeDocument(database: session.path, databaseName: world.databaseName, refreshed: refreshed)
    }

    package func fleetResult(_ report: OptimizeDocument) -> String {
        report.refreshed.isEmpty ? "statistics current" : "refreshed \(report.refreshed.count) table\(report.refreshed.count == 1 ? "" : "s")"
    }

    /// Each row of `sqlite_stat1` (none before the first ANALYZE made the table), keyed by
    /// its table and index.
    private static func statistics(in db: any SQLQuerying) throws -> [StatisticKey: String?] {
        guard try !db.textColumn(sql: "SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'").isEmpty else { return [:] }
        var rows: [StatisticKey: String?] = [:]
        try db.forEachTextRow(sql: "SELECT tbl, idx, stat FROM sqlite_stat1", arguments: []) { row in
            rows[StatisticKey(table: row[0] ?? "", index: row[1])] = row[2]
        }
        return rows
    }

    private struct StatisticKey: Hashable {
        let table: String
        let index: String?
    }
}

/// `optimize --json`: the tables whose statistics it wrote.
struct OptimizeDocument: Encodable, Sendable {
    package let database: String
    @AlwaysPresent package var databaseName: String?
    /// The tables whose rows of `sqlite_stat1` changed, by name; empty when none did.
    let refreshed: [String]
}
