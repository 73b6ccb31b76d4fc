import Foundation
import MigrationKitTestSupport
@testable import MigrationKit
@testable import MigrationKitSQLCipher
import Testing

private func sqlStep(_ identifier: String, _ sql: String) -> SQLCipherMigrationStep {
    SQLCipherMigrationStep(
        identifier: identifier, sourceFile: "\(identifier).sql", checksum: SQLCipherMigrationStep.checksum(of: sql),
        apply: { db in try db.execute(sql: sql) })
}

@Suite struct BaselineTests {
    private let steps = [
        sqlStep("0001_a", "CREATE TABLE a (x)"),
        sqlStep("0002_b", "CREATE TABLE b (y)"),
        sqlStep("0003_c", "CREATE TABLE c (z)"),
    ]

    @Test func baselineRecordsStepsWithoutRunningThemThenMigrateAppliesTheRest() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("legacy.db"), key: .testRawKey)
        // A database the app created before MigrationKit managed it.
        try writer.write { try $0.execute(sql: "CREATE TABLE a (x); CREATE TABLE b (y); INSERT INTO a VALUES (1);") }
        let runner = try SQLCipherMigrationRunner(steps: steps)
        #expect(try runner.baseline(in: writer, upTo: "0002_b") == ["0001_a", "0002_b"])
        #expect(try runner.migrationStatus(in: writer).entries.map(\.state) == [.applied, .applied, .pending])
        #expect(try runner.migrate(in: writer).identifiers == ["0003_c"])
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT x FROM a") } == 1)
    }

    @Test func baselineRefusesADatabaseManagedPastTheTarget() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let runner = try SQLCipherMigrationRunner(steps: steps)
        try runner.migrate(in: writer)
        let before = try fileBytes(directory.path("app.db"))
        #expect(throws: MigrationKitError.databaseAlreadyMigratedBeyond("0001_a")) { try runner.baseline(in: writer, upTo: "0001_a") }
        #expect(throws: MigrationKitError.unknownMigration("0009_x")) { try runner.baseline(in: writer, upTo: "0009_x") }
        #expect(try fileBytes(directory.path("app.db")) == before)
    }
}

@Suite struct EraseOnSchemaChangeTests {
    private let steps = [sqlStep("0001_a", "CREATE TABLE a (x)"), sqlStep("0002_b", "CREATE TABLE b (y)")]

    private func migratedWriter(_ directory: TemporaryDirectory) throws -> SQLCipherWriter {
        let writer = try SQLCipherWriter(path: directory.path("dev.db"), key: .testRawKey)
        try SQLCipherMigrationRunner(steps: steps).migrate(in: writer)
        try writer.write { try $0.execute(sql: "INSERT INTO a VALUES ('dev data')") }
        return writer
    }

    @Test func anUnchangedHistoryIsNotErased() throws {
        let directory = try TemporaryDirectory()
        let writer = try migratedWriter(directory)
        let runner = try SQLCipherMigrationRunner(steps: steps)
        #expect(try runner.schemaChange(in: writer) == nil)
        let result = try runner.migrateErasingOnSchemaChange(in: writer)
        #expect(result.erased == nil)
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM a") } == 1)
    }

    @Test func aRemovedStepTriggersAnErase() throws {
        let directory = try TemporaryDirectory()
        let writer = try migratedWriter(directory)
        let runner = try SQLCipherMigrationRunner(steps: [steps[0]])
        let change = try #require(try runner.schemaChange(in: writer))
        #expect(change.reasons == [.removedOrRenamed(["0002_b"])])
        #expect(change.objectsToErase.contains("table a"))
        let result = try runner.migrateErasingOnSchemaChange(in: writer)
        #expect(result.erased != nil)
        #expect(result.report.identifiers == ["0001_a"])
        try writer.read { db throws in
            #expect(try db.fetchInt(sql: "SELECT count(*) FROM a") == 0)
            #expect(try !db.tableExists("b"))
        }
    }

    @Test func aRenamedStepTriggersAnErase() throws {
        let directory = try TemporaryDirectory()
        let writer = try migratedWriter(directory)
        let renamed = try SQLCipherMigrationRunner(steps: [steps[0], sqlStep("0002_b_renamed", "CREATE TABLE b (y)")])
        #expect(try renamed.schemaChange(in: writer)?.reasons == [.removedOrRenamed(["0002_b"])])
        #expect(try renamed.migrateErasingOnSchemaChange(in: writer).report.identifiers == ["0001_a", "0002_b_renamed"])
    }

    @Test func anEditedStepTriggersAnErase() throws {
        let directory = try TemporaryDirectory()
        let writer = try migratedWriter(directory)
        let edited = try SQLCipherMigrationRunner(steps: [steps[0], sqlStep("0002_b", "CREATE TABLE b (y, z)")])
        #expect(try edited.schemaChange(in: writer)?.reasons == [.edited(["0002_b"])])
        try edited.migrateErasingOnSchemaChange(in: writer)
        #expect(try writer.read { try $0.columns(in: "b").map(\.name) } == ["y", "z"])
    }

    @Test func schemaDriftTriggersAnErase() throws {
        let directory = try TemporaryDirectory()
        let writer = try migratedWriter(directory)
        // Someone changed the schema by hand, outside any migration.
        try writer.write { try $0.execute(sql: "CREATE TABLE handmade (q)") }
        let runner = try SQLCipherMigrationRunner(steps: steps)
        let change = try #require(try runner.schemaChange(in: writer))
        guard case .schemaDrift(let expected, let actual) = change.reasons.first else {
            Issue.record("expected schema drift, got \(change)")
            return
        }
        #expect(!expected.contains("handmade") && actual.contains("handmade"))
        try runner.migrateErasingOnSchemaChange(in: writer)
        #expect(try writer.read { try $0.tableExists("handmade") } == false)
    }
}

/// An app that kept its version in `PRAGMA user_version` (its own ladder) adopts its
/// database at launch, before `migrate(in:)`: the ladder's N is the first N steps,
/// proven against the schema, and the rest then runs.
@Suite struct AdoptionTests {
    private let steps = [
        sqlStep("0001_a", "CREATE TABLE a (x)"),
        sqlStep("0002_b", "CREATE TABLE b (y)"),
        sqlStep("0003_c", "CREATE TABLE c (z)"),
    ]

    @Test func anAppOnAUserVersionLadderAdoptsAtLaunchThenMigrates() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("ladder.db"), key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE a (x); CREATE TABLE b (y); INSERT INTO a VALUES (1); PRAGMA user_version = 2;") }
        let runner = try SQLCipherMigrationRunner(steps: steps)
        // As docs/adopting.md's app does it at launch.
        #expect(try runner.migrationStatus(in: writer).applied.isEmpty)
        #expect(try writer.read({ try OtherToolLedger.read(.userVersion, in: $0) })?.lastVersion == "2")
        let dryRun = try runner.adopt(in: writer, dryRun: true)
        #expect(dryRun.identifiers == ["0001_a", "0002_b"] && dryRun.isDryRun && dryRun.tool == .userVersion)
        #expect(try runner.migrationStatus(in: writer).entries.map(\.state) == [.pending, .pending, .pending])

        let adoption = try runner.adopt(in: writer, retiringLedger: true)
        #expect(adoption.identifiers == ["0001_a", "0002_b"] && adoption.retired == ["user_version"])
        #expect(try writer.read { try $0.fetchInt(sql: "PRAGMA user_version") } == 0)
        #expect(try runner.migrate(in: writer).identifiers == ["0003_c"])
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT x FROM a") } == 1)

        // A new database has no ladder: nothing to adopt, migrated from the start.
        let fresh = try SQLCipherWriter(path: directory.path("new.db"), key: .testRawKey)
        #expect(try fresh.read({ try OtherToolLedger.read(.userVersion, in: $0) }) == nil)
        #expect(try runner.migrate(in: fresh).identifiers == ["0001_a", "0002_b", "0003_c"])
    }

    @Test func aLadderWhoseSchemaDiffersIsRefusedWithNothingWritten() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("ladder.db"), key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE a (x); PRAGMA user_version = 2;") }
        let runner = try SQLCipherMigrationRunner(steps: steps)
        #expect {
            try runner.adopt(in: writer)
        } throws: { error in
            guard case .schemaDiffers(let first, _, "0002_b")? = (error as? OtherToolAdoptionError)?.problems.first else { return false }
            return first.name == "b" && first.change == .missing
        }
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM sqlite_master WHERE name = 'grdb_migrations'") } == 0)
        #expect(throws: OtherToolAdoptionError(problems: [.beyondFolder(userVersion: 4, migrations: 3)])) {
            try writer.write { try $0.execute(sql: "PRAGMA user_version = 4") }
            try runner.adopt(in: writer)
        }
    }
}

/// The SQLCipher runner's own calls for an older release of the app: what it can do with
/// a database a newer release migrated, and the step back with its backup.
@Suite struct StepBackTests {
    private static func fileStep(_ identifier: String, up: String, down: String?,
                                 _ compatibility: MigrationCompatibility? = nil) -> SQLCipherMigrationStep {
        SQLCipherMigrationStep(file: SQLMigrationFile(
            identifier: identifier, form: .sections, up: SQLSection(sql: up, path: "\(identifier).sql", startLine: 2),
            down: down.map { SQLSection(sql: $0, path: "\(identifier).sql", startLine: 4) }, compatibility: compatibility))
    }

    private static let notes = fileStep("0001_notes", up: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);", down: "DROP TABLE notes;")

    @Test func theOlderReleaseBacksUpThenStepsBackNewestFirst() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        let newer = try SQLCipherMigrationRunner(steps: [
            Self.notes,
            Self.fileStep("0002_tags", up: "CREATE TABLE tags (id INTEGER PRIMARY KEY);", down: "DROP TABLE tags;"),
            Self.fileStep("0003_pins", up: "CREATE TABLE pins (note INTEGER);", down: "DROP TABLE pins;", .withOlderBuilds),
        ])
        try newer.migrate(in: writer)
        let older = try SQLCipherMigrationRunner(steps: [Self.notes])
        let answer = try older.databaseCompatibility(in: writer)
        guard case .canStepBack = answer else { Issue.record("\(answer)"); return }

        let report = try older.rollbackNewerMigrations(in: writer, backupDirectory: directory.url.path)
        #expect(report.identifiers == ["0003_pins", "0002_tags"])
        let backup = try #require(report.backup)
        #expect(try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int == 0o600)
        let kept = try SQLCipherWriter(path: backup, key: .testRawKey)
        #expect(try kept.read { try $0.fetchStrings(sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") } == ["0001_notes", "0002_tags", "0003_pins"])
        try kept.close()
        #expect(try older.databaseCompatibility(in: writer) == .current)
        #expect(try writer.read { try $0.fetchStrings(sql: "SELECT name FROM sqlite_master WHERE name IN ('tags', 'pins')") } == [])
        #expect(try older.migrate(in: writer).identifiers.isEmpty)

        // Nothing newer in the way: no step, no backup.
        let again = try older.rollbackNewerMigrations(in: writer, backupDirectory: directory.url.path)
        #expect(again.identifiers.isEmpty && again.backup == nil)
    }
}
