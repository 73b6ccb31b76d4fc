import Foundation
import GRDB
import GRDBTestSupport
import MigrationKit
import MigrationKitGRDB
import Testing

/// The foreign-key modes are GRDB's, and the verification after the run says only what
/// it checked.
@Suite struct GRDBForeignKeyModeTests {
    private static let orphan = """
        CREATE TABLE parent(id INTEGER NOT NULL PRIMARY KEY);
        CREATE TABLE child(parentId INTEGER REFERENCES parent(id));
        INSERT INTO child (parentId) VALUES (1);
        """

    /// `disablingDeferredForeignKeyChecks()` applies to the steps registered after it,
    /// as GRDB's: a violation an earlier step adds still fails it, with GRDB's error.
    @Test func disablingDeferredChecksAppliesToStepsRegisteredAfterIt() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        var runner = GRDBMigrationRunner()
        runner.registerMigration("checked") { db in try db.execute(sql: Self.orphan) }
        runner = runner.disablingDeferredForeignKeyChecks()
        runner.registerMigration("unchecked") { _ in }
        let events = EventRecorder()
        runner.observer = events.record
        #expect {
            try runner.migrate(in: writer)
        } throws: { error in
            (error as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY
        }
        #expect(events.failures.map(\.identifier) == ["checked"])
        #expect(try writer.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }.isEmpty)
    }

    /// A step that ran unchecked leaves foreign keys to the app: the verification does
    /// not fail on them, and does not list them among the checks that passed.
    @Test func aRunWithAnUncheckedStepDoesNotClaimItCheckedForeignKeys() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        var runner = GRDBMigrationRunner().disablingDeferredForeignKeyChecks()
        runner.registerMigration("orphan") { db in try db.execute(sql: Self.orphan) }
        let report = try runner.migrate(in: writer)
        #expect(report.identifiers == ["orphan"])
        #expect(report.verification == ["quick_check of 2 changed tables"], "\(report.verification)")
        // The violation is in the file, as GRDB's migrator would have left it.
        #expect(throws: DatabaseError.self) { try writer.read { try $0.checkForeignKeys() } }

        // A run whose steps were checked says so.
        let checked = try ScratchDatabase()
        var plain = GRDBMigrationRunner()
        plain.registerMigration("fine") { db in try db.execute(sql: "CREATE TABLE parent(id INTEGER PRIMARY KEY)") }
        #expect(try plain.migrate(in: try checked.queue()).verification.contains("foreign keys"))
    }

    /// An immediate step fails at the statement that breaks a foreign key: GRDB's
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`, as `catch` clauses of GRDB apps match it.
    @Test func anImmediateStepFailsWithGRDBsErrorAtTheStatement() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        var runner = GRDBMigrationRunner()
        runner.registerMigration("tables") { db in
            try db.execute(sql: "CREATE TABLE parent(id INTEGER NOT NULL PRIMARY KEY); CREATE TABLE child(parentId INTEGER REFERENCES parent(id))")
        }
        runner.registerMigration("orphan", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "INSERT INTO child (parentId) VALUES (1)")
        }
        do {
            try runner.migrate(writer)
            Issue.record("expected a foreign-key error")
        } catch DatabaseError.SQLITE_CONSTRAINT_FOREIGNKEY {}
        #expect(try writer.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") } == ["tables"])
    }
}
