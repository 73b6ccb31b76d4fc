import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import Testing

/// MigrationKit's bookkeeping is GRDB's to ignore: a database the runner migrated reads,
/// to GRDB's dumps and schema comparisons, exactly as one GRDB's migrator migrated; and
/// an earlier version's history table, which GRDB would count as the app's, moves over
/// on the next write.
@Suite struct GRDBBookkeepingTests {
    private static func register(_ add: (String, @escaping @Sendable (Database) throws -> Void) -> Void) {
        add("Create authors") { db in
            try db.create(table: "author") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
            }
            try db.execute(sql: "INSERT INTO author (name) VALUES ('Ann')")
        }
        add("Add books") { db in
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("author").notNull()
            }
        }
    }

    private static var grdbsMigrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        register { migrator.registerMigration($0, migrate: $1) }
        return migrator
    }

    private static var runner: GRDBMigrationRunner {
        var runner = GRDBMigrationRunner()
        register { runner.registerMigration($0, migrate: $1) }
        return runner
    }

    private struct Dump {
        let schema: String
        let content: String
    }

    /// Text GRDB's dumps print.
    private final class Printed: TextOutputStream {
        var text = ""
        func write(_ string: String) { text += string }
    }

    private func dump(_ writer: any DatabaseWriter) throws -> Dump {
        let schema = Printed()
        let content = Printed()
        try writer.dumpSchema(to: schema)
        try writer.dumpContent(to: content)
        return Dump(schema: schema.text, content: content.text)
    }

    /// The table an earlier version kept its history in, as it made it, with a row.
    private static let legacyHistory = """
        CREATE TABLE migrationkit_history (
            identifier TEXT NOT NULL PRIMARY KEY,
            checksum TEXT,
            applied_at TEXT NOT NULL,
            duration_ms INTEGER NOT NULL
        );
        INSERT INTO migrationkit_history VALUES ('Create authors', 'sum-authors', '2026-01-01T00:00:00.000Z', 12);
        """

    @Test(arguments: WriterKind.allCases)
    func aDatabaseTheRunnerMigratedReadsToGRDBAsOneGRDBMigrated(_ kind: WriterKind) throws {
        let byGRDB = try ScratchDatabase()
        let byRunner = try ScratchDatabase()
        let grdbWriter = try kind.open(byGRDB)
        let runnerWriter = try kind.open(byRunner)
        try Self.grdbsMigrator.migrate(grdbWriter)
        try Self.runner.migrate(runnerWriter)
        #expect(try runnerWriter.read { try $0.tableExists(MigrationHistoryTable.name) }, "the runner keeps its history")

        let expected = try dump(grdbWriter)
        let actual = try dump(runnerWriter)
        #expect(actual.schema == expected.schema)
        #expect(actual.content == expected.content)
        #expect(try runnerWriter.read { try Self.grdbsMigrator.hasSchemaChanges($0) } == false)

        // An app that goes back to GRDB's migrator, erasing on schema change as GRDB
        // recommends for development, keeps its rows.
        var back = Self.grdbsMigrator
        back.eraseDatabaseOnSchemaChange = true
        try back.migrate(runnerWriter)
        #expect(try runnerWriter.read { try String.fetchAll($0, sql: "SELECT name FROM author") } == ["Ann"])
    }

    /// A database GRDB migrated to "Create authors" (the migrator returned) whose history
    /// an earlier version kept in `migrationkit_history`. The scratch folder lives as
    /// long as the caller keeps it.
    private static func migratedByAnEarlierVersion() throws -> (ScratchDatabase, DatabaseQueue, DatabaseMigrator) {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        var first = DatabaseMigrator()
        register { identifier, body in if identifier == "Create authors" { first.registerMigration(identifier, migrate: body) } }
        try first.migrate(writer)
        try writer.write { try $0.execute(sql: legacyHistory) }
        return (scratch, writer, first)
    }

    /// A runner whose "Create authors" differs from what the earlier version recorded.
    private static func editedRunner() throws -> GRDBMigrationRunner {
        try GRDBMigrationRunner(steps: [MigrationStep(identifier: "Create authors", checksum: "sum-authors-edited", apply: { _ in })])
    }

    @Test func anEarlierVersionsHistoryIsReadAndMovesOverOnTheNextWrite() throws {
        let (scratch, writer, first) = try Self.migratedByAnEarlierVersion()
        defer { withExtendedLifetime(scratch) {} }

        // Read: an edit is found against the checksum the earlier version recorded.
        let edited = try Self.editedRunner()
        #expect(try edited.migrationStatus(in: writer).modified == ["Create authors"])
        // GRDB alone counts the old table as the app's; the runner's comparison does not.
        #expect(try writer.read { try first.hasSchemaChanges($0) })
        #expect(try writer.read { try Self.runner.hasSchemaChanges($0) } == false)

        // The next write moves it, in the same transaction as the step.
        try Self.runner.migrate(writer)
        #expect(try writer.read { try $0.tableExists(MigrationHistoryTable.legacyName) } == false)
        let moved = try writer.read {
            try Row.fetchOne($0, sql: "SELECT checksum, duration_ms FROM grdb_migrationkit_history WHERE identifier = 'Create authors'")
        }
        #expect(moved?["checksum"] == "sum-authors" && moved?["duration_ms"] == 12)
        #expect(try writer.read { try Self.grdbsMigrator.hasSchemaChanges($0) } == false)
        #expect(try writer.read { try String.fetchAll($0, sql: "SELECT name FROM author") } == ["Ann"])
    }

    /// An edit accepted on a database that still has an earlier version's history is
    /// recorded where the next read finds it: the old table, whose rows are read as the
    /// newer ones, moves first.
    @Test func anEditAcceptedOverAnEarlierVersionsHistoryStaysAccepted() throws {
        let (scratch, writer, _) = try Self.migratedByAnEarlierVersion()
        defer { withExtendedLifetime(scratch) {} }
        var edited = try Self.editedRunner()
        edited.historyChecks = .strict
        #expect(throws: MigrationKitError.self) { try edited.migrate(in: writer) }
        try edited.migrate(in: writer, options: MigrateOptions(acceptModified: ["Create authors"]))
        #expect(try edited.migrationStatus(in: writer).modified.isEmpty)
        #expect(try writer.read { try $0.tableExists(MigrationHistoryTable.legacyName) } == false)
        try edited.migrate(in: writer)
    }

    /// With GRDB's erase-on-schema-change, GRDB's comparison finds the old table on both
    /// sides (the runner makes it in GRDB's scratch database too): a database an earlier
    /// version migrated is not erased for it, a run with nothing to do writes nothing,
    /// and the first step that runs moves it.
    @Test func erasingOnSchemaChangeDoesNotEraseForAnEarlierVersionsHistory() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        try Self.grdbsMigrator.migrate(writer)
        try writer.write { try $0.execute(sql: Self.legacyHistory) }
        var runner = Self.runner
        runner.eraseDatabaseOnSchemaChange = true
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.path))
        #expect(try runner.migrate(in: writer).identifiers.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path)) == before)

        runner.registerMigration("Add shelves") { db in try db.execute(sql: "CREATE TABLE shelf(id INTEGER PRIMARY KEY)") }
        #expect(try runner.migrate(in: writer).identifiers == ["Add shelves"])
        #expect(try writer.read { try String.fetchAll($0, sql: "SELECT name FROM author") } == ["Ann"])
        #expect(try writer.read { try $0.tableExists(MigrationHistoryTable.legacyName) } == false)
    }

    /// GRDB's migrator does all a launch with nothing to do reads and writes: the runner
    /// adds no statement of its own (GRDB's trace of both is the same).
    @Test func aLaunchWithNothingToDoRunsGRDBsStatementsOnly() throws {
        func statements(_ migrate: (DatabaseQueue) throws -> Void) throws -> [String] {
            let scratch = try ScratchDatabase()
            try Self.grdbsMigrator.migrate(try scratch.queue())
            let traced = Trace()
            var configuration = Configuration()
            configuration.prepareDatabase { db in db.trace { traced.append("\($0)") } }
            let queue = try DatabaseQueue(path: scratch.path, configuration: configuration)
            traced.clear()
            try migrate(queue)
            return traced.all
        }
        let grdb = try statements { try Self.grdbsMigrator.migrate($0) }
        let runner = try statements { try Self.runner.migrate($0) }
        #expect(!grdb.isEmpty)
        #expect(runner == grdb)
    }
}

/// Statements GRDB traced.
final class Trace: @unchecked Sendable {
    private let lock = NSLock()
    private var statements: [String] = []
    func append(_ statement: String) { lock.withLock { statements.append(statement) } }
    func clear() { lock.withLock { statements.removeAll() } }
    var all: [String] { lock.withLock { statements } }
}
