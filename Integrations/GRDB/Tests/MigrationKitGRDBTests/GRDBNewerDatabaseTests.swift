import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import Testing

/// Two releases of a GRDB app: release 2 adds a table declared compatible with release 1
/// and a column release 1's inserts would break, each registered with rollback SQL, which
/// the database keeps. Release 1 then finds the database and asks what it can do, as
/// docs/downgrades.md's launch recipe does.
@Suite struct GRDBNewerDatabaseTests {
    private static func release(_ version: Int, colorRollback: String? = Self.colorRollback) -> GRDBMigrationRunner {
        var runner = GRDBMigrationRunner()
        runner.registerMigration("v1_notes") { db in try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
        guard version >= 2 else { return runner }
        runner.registerMigration("v2_tags", compatibility: .withOlderBuilds, rollbackSQL: "DROP TABLE tag") { db in
            try db.execute(sql: "CREATE TABLE tag (id INTEGER PRIMARY KEY, name TEXT)")
        }
        let color: @Sendable (Database) throws -> Void = { db in try db.execute(sql: "ALTER TABLE note ADD COLUMN color TEXT NOT NULL DEFAULT 'white'") }
        if let colorRollback {
            runner.registerMigration("v3_color", rollbackSQL: colorRollback, migrate: color)
        } else {
            runner.registerMigration("v3_color", rollback: { db in try db.execute(sql: Self.colorRollback) }, migrate: color)
        }
        return runner
    }

    private static let colorRollback = """
        CREATE TABLE note_narrow (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
        INSERT INTO note_narrow (id, body) SELECT id, body FROM note;
        DROP TABLE note;
        ALTER TABLE note_narrow RENAME TO note;
        """

    @Test(arguments: WriterKind.allCases)
    func theOlderReleaseStepsBackFromTheRollbackSQLTheNewerOneKept(_ kind: WriterKind) throws {
        let scratch = try ScratchDatabase()
        let writer = try kind.open(scratch)
        try Self.release(2).migrate(writer)
        try writer.write { db in try db.execute(sql: "INSERT INTO note (body, color) VALUES ('a', 'red')") }

        let older = Self.release(1)
        #expect(try older.hasBeenSuperseded(in: writer), "GRDB's own answer stays")
        let answer = try older.databaseCompatibility(in: writer)
        guard case .canStepBack(let newer) = answer else { Issue.record("\(answer)"); return }
        #expect(newer.map(\.identifier) == ["v2_tags", "v3_color"])
        #expect(answer.undone == ["v3_color"])

        let backupPath = scratch.folder.appendingPathComponent("before-step-back.sqlite").path
        let report = try older.rollbackNewerMigrations(in: writer, backupTo: backupPath)
        #expect(report.identifiers == ["v3_color"] && report.backup == backupPath)
        #expect(try FileManager.default.attributesOfItem(atPath: backupPath)[.posixPermissions] as? Int == 0o600)
        let kept = try DatabaseQueue(path: backupPath)
        #expect(try kept.read { try String.fetchOne($0, sql: "SELECT color FROM note") } == "red")
        try kept.close()

        // Release 1 uses the database as it is now, its row kept, the compatible table too.
        guard case .compatible = try older.databaseCompatibility(in: writer) else { Issue.record("not compatible after the step back"); return }
        var strict = older
        strict.historyChecks = .strict
        _ = try strict.migrate(in: writer)
        try writer.read { db throws in
            #expect(try db.columns(in: "note").map(\.name) == ["id", "body"])
            #expect(try String.fetchAll(db, sql: "SELECT body FROM note") == ["a"])
            #expect(try db.tableExists("tag"))
        }
        // Nothing newer in the way: nothing done, no backup.
        let again = try older.rollbackNewerMigrations(in: writer, backupTo: backupPath + "-2")
        #expect(again.identifiers.isEmpty && again.backup == nil && !FileManager.default.fileExists(atPath: backupPath + "-2"))
    }

    /// A Swift step's closure has no SQL to keep: release 1 is told which step blocks,
    /// and neither steps back nor writes anything.
    @Test func aRollbackClosureCannotBeSteppedBackFromAndIsNamed() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        try Self.release(2, colorRollback: nil).migrate(writer)
        let older = Self.release(1)
        let answer = try older.databaseCompatibility(in: writer)
        guard case .mustRefuse(let newer) = answer else { Issue.record("\(answer)"); return }
        #expect(newer.first { $0.identifier == "v3_color" }?.verdict == .blocks(.noStoredDown))
        #expect(answer.blocking == ["v3_color"])
        let backupPath = scratch.folder.appendingPathComponent("backup.sqlite").path
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["v3_color"])) {
            _ = try older.rollbackNewerMigrations(in: writer, backupTo: backupPath)
        }
        #expect(!FileManager.default.fileExists(atPath: backupPath))
        var strict = older
        strict.historyChecks = .strict
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["v3_color"])) { _ = try strict.migrate(in: writer) }
    }

    /// A migrator split into parts (GRDB #1665): the second part declares the first
    /// part's identifiers known, so the database is current to it and `.strict` checks
    /// pass without naming them at each launch; GRDB's `hasBeenSuperseded` stays GRDB's.
    @Test func aSplitMigratorsPartsKnowEachOther() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        var first = GRDBMigrationRunner()
        first.registerMigration("a") { db in try db.execute(sql: "CREATE TABLE a (x)") }
        var second = GRDBMigrationRunner()
        second.historyChecks = .strict
        second.registerMigration("b") { db in try db.execute(sql: "CREATE TABLE b (x)") }
        try first.migrate(writer)
        #expect(throws: MigrationKitError.databaseSuperseded(unknown: ["a"])) { _ = try second.migrate(in: writer) }
        second.registerKnownMigrations(["a"])
        #expect(try second.migrate(in: writer).identifiers == ["b"])
        #expect(try second.databaseCompatibility(in: writer) == .current)
        #expect(try second.migrationStatus(in: writer).pending.isEmpty)
        #expect(try second.hasBeenSuperseded(in: writer))
    }
}
