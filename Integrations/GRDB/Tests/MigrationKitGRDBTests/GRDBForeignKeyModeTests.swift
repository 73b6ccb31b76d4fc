import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
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

    /// Rolling back a step the app checks itself leaves foreign keys to the app too, as
    /// its migrate did: the rollback's verification does not fail on them.
    @Test func rollingBackAnUncheckedStepLeavesForeignKeysToTheApp() throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        var runner = GRDBMigrationRunner().disablingDeferredForeignKeyChecks()
        runner.registerMigration("tables") { db in
            try db.execute(sql: "CREATE TABLE parent(id INTEGER NOT NULL PRIMARY KEY); CREATE TABLE child(parentId INTEGER REFERENCES parent(id))")
        }
        runner.registerMigration("orphan on the way back", rollback: { db in try db.execute(sql: "INSERT INTO child (parentId) VALUES (1)") }) { _ in }
        try runner.migrate(in: writer)
        #expect(try runner.rollbackLastMigration(in: writer).identifiers == ["orphan on the way back"])
        #expect(try writer.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") } == ["tables"])
        #expect(try writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM child") } == 1)
    }

    /// A violation the file had before the run is the app's, as GRDB leaves it: a run of
    /// immediate steps (enforced, so they added none) passes its verification and says
    /// foreign keys were checked; on a connection that does not enforce them (GRDB then
    /// checks nothing, whatever the configuration says) a run claims nothing of them.
    @Test func aViolationTheFileHadBeforeIsTheAppsAsGRDBLeavesIt() throws {
        let scratch = try ScratchDatabase()
        var loose = Configuration()
        loose.foreignKeysEnabled = false
        var before = DatabaseMigrator()
        before.registerMigration("orphan") { db in try db.execute(sql: Self.orphan) }
        try before.migrate(try DatabaseQueue(path: scratch.path, configuration: loose))

        var runner = GRDBMigrationRunner()
        runner.registerMigration("orphan") { db in try db.execute(sql: Self.orphan) }
        runner.registerMigration("more", foreignKeyChecks: .immediate) { db in try db.execute(sql: "CREATE TABLE more(x)") }
        #expect(try runner.migrate(in: try scratch.queue()).verification == ["quick_check of 1 changed table", "foreign keys"])

        // The configuration enforces them; the app's own setup turns them off.
        var pragmaOff = Configuration()
        pragmaOff.prepareDatabase { db in try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        runner.registerMigration("orphan again") { db in try db.execute(sql: "INSERT INTO child (parentId) VALUES (2)") }
        #expect(try runner.migrate(in: try DatabaseQueue(path: scratch.path, configuration: pragmaOff)).verification
            == ["quick_check of 1 changed table"])
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
