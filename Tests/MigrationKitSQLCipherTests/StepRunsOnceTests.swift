import CSQLCipher
import Foundation
@testable import MigrationKit
import MigrationKitTestSupport
import Testing
@testable import MigrationKitSQLCipher

/// A migration's body runs exactly once, as in GRDB, even on a database that carries
/// foreign-key violations from before (an app that never turned foreign keys on): the
/// runner learns what the database held without undoing the step and running it again.
@Suite struct StepRunsOnceTests {
    /// Counts what a step's body and the observer see, from any thread.
    private final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]

        func count(_ name: String) { lock.withLock { counts[name, default: 0] += 1 } }
        subscript(name: String) -> Int { lock.withLock { counts[name, default: 0] } }
    }

    private static let family = SQLCipherMigrationStep(identifier: "0001_family") { db in
        try db.execute(sql: """
            CREATE TABLE parents (id INTEGER PRIMARY KEY);
            CREATE TABLE children (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parents(id), name TEXT);
            INSERT INTO parents VALUES (1);
            INSERT INTO children VALUES (10, 1, 'kept');
            """)
    }

    /// A database whose `children` holds an orphan from before this run.
    private func databaseWithAnOldOrphan() throws -> (TemporaryDirectory, SQLCipherWriter) {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try SQLCipherMigrationRunner(steps: [Self.family]).migrate(in: writer)
        // The app wrote it with foreign keys off, as SQLite's default has them.
        try writer.writeWithoutTransaction { db throws in
            try db.setForeignKeysEnabled(false)
            try db.execute(sql: "INSERT INTO children VALUES (20, 404, 'an old orphan')")
        }
        #expect(try writer.read { try ForeignKeyDeferral.foreignKeyViolationCount(in: $0) } == 1)
        return (directory, writer)
    }

    /// A Swift step that rewrites the table holding the orphan, counting its calls.
    private static func rewritingChildren(_ tally: Tally) -> SQLCipherMigrationStep {
        SQLCipherMigrationStep(identifier: "0002_rename_children") { db in
            tally.count("body")
            try db.execute(sql: "UPDATE children SET name = upper(name)")
        } rollback: { db in
            tally.count("rollback")
            try db.execute(sql: "UPDATE children SET name = lower(name)")
        }
    }

    private static func observing(_ tally: Tally) -> @Sendable (MigrationEvent) -> Void {
        { event in
            switch event {
            case .willApply(let identifier, _, _): tally.count("willApply \(identifier)")
            case .didApply(let identifier, _): tally.count("didApply \(identifier)")
            case .willRollback(let identifier, _, _): tally.count("willRollback \(identifier)")
            case .didRollback(let identifier, _): tally.count("didRollback \(identifier)")
            default: break
            }
        }
    }

    @Test(arguments: [MigrateOptions.Mode.perStep, .atomic, .dryRun], [MigrateOptions.Verification.changedTables, .wholeFile])
    func aSwiftStepRunsOnceOnADatabaseWithOldOrphans(mode: MigrateOptions.Mode, verification: MigrateOptions.Verification) throws {
        let (directory, writer) = try databaseWithAnOldOrphan()
        defer { withExtendedLifetime(directory) {} }
        let tally = Tally()
        var runner = try SQLCipherMigrationRunner(steps: [Self.family, Self.rewritingChildren(tally)])
        runner.observer = Self.observing(tally)
        let report = try runner.migrate(in: writer, options: MigrateOptions(mode: mode, verification: verification))
        #expect(tally["body"] == 1)
        #expect(tally["willApply 0002_rename_children"] == 1)
        #expect(tally["didApply 0002_rename_children"] == 1)
        #expect(report.steps.map(\.identifier) == ["0002_rename_children"])
        // The orphan was there before: kept, and reported, not the step's failure.
        #expect(report.preexistingForeignKeyViolations?.groups.map(\.table) == ["children"])
        let names = try writer.read { try $0.fetchStrings(sql: "SELECT name FROM children ORDER BY id") }
        #expect(names == (mode == .dryRun ? ["kept", "an old orphan"] : ["KEPT", "AN OLD ORPHAN"]))

        guard mode != .dryRun else { return }
        try runner.rollbackLastMigration(in: writer)
        #expect(tally["rollback"] == 1)
        #expect(tally["willRollback 0002_rename_children"] == 1)
        #expect(try writer.read { try $0.fetchStrings(sql: "SELECT name FROM children ORDER BY id") } == ["kept", "an old orphan"])
    }

    /// A Swift step that adds an orphan of its own still fails, once, and leaves nothing.
    @Test(arguments: [MigrateOptions.Mode.perStep, .atomic])
    func aSwiftStepThatAddsAViolationFailsAfterOneRun(mode: MigrateOptions.Mode) throws {
        let (directory, writer) = try databaseWithAnOldOrphan()
        defer { withExtendedLifetime(directory) {} }
        let tally = Tally()
        let addsOrphan = SQLCipherMigrationStep(identifier: "0002_adds_orphan") { db in
            tally.count("body")
            try db.execute(sql: "INSERT INTO children VALUES (30, 505, 'a new orphan')")
        }
        #expect {
            try SQLCipherMigrationRunner(steps: [Self.family, addsOrphan]).migrate(in: writer, options: MigrateOptions(mode: mode))
        } throws: { error in
            let step = error as? MigrationStepError
            guard case .foreignKeyViolationsAdded(let added) = (step?.underlying ?? error) as? MigrationKitError else { return false }
            return added.groups.map(\.table) == ["children"] && added.groups.map(\.count) == [1]
        }
        #expect(tally["body"] == 1)
        #expect(try writer.read { try $0.fetchInt(sql: "SELECT count(*) FROM children") } == 2)
    }

    /// A migration file's SQL changes nothing but the database: in the rare run that
    /// has to look at the database before it, it may be rolled back and run again,
    /// unseen. Observers still hear of it once.
    @Test func aFileStepIsAnnouncedOnceOnADatabaseWithOldOrphans() throws {
        let (directory, writer) = try databaseWithAnOldOrphan()
        defer { withExtendedLifetime(directory) {} }
        let folder = directory.path("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "-- migrate:up\nUPDATE children SET name = upper(name);\n".write(toFile: folder + "/0002_shout.sql", atomically: true, encoding: .utf8)
        let files = try SQLMigrationDirectory(path: folder).load().map { SQLCipherMigrationStep(file: $0) }
        #expect(files.allSatisfy { $0.changesOnlyTheDatabase })
        #expect(!Self.family.changesOnlyTheDatabase)
        let tally = Tally()
        var runner = try SQLCipherMigrationRunner(steps: [Self.family] + files)
        runner.observer = Self.observing(tally)
        let report = try runner.migrate(in: writer)
        #expect(tally["willApply 0002_shout"] == 1)
        #expect(tally["didApply 0002_shout"] == 1)
        #expect(report.preexistingForeignKeyViolations?.groups.map(\.table) == ["children"])
        #expect(try writer.read { try $0.fetchStrings(sql: "SELECT name FROM children ORDER BY id") } == ["KEPT", "AN OLD ORPHAN"])
    }

    /// The SQL of every statement a connection starts, in order.
    private final class StatementLog: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [String] = []

        var statements: [String] { lock.withLock { recorded } }

        /// Starts recording what `db` runs, for as long as the log lives.
        func record(_ db: SQLCipherDatabase) {
            sqlite3_trace_v2(db.handle, UInt32(SQLITE_TRACE_STMT), { _, context, statement, _ in
                guard let context, let statement, let sql = sqlite3_sql(OpaquePointer(statement)) else { return 0 }
                let log = Unmanaged<StatementLog>.fromOpaque(context).takeUnretainedValue()
                log.lock.withLock { log.recorded.append(String(cString: sql)) }
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// A migration file that rewrites the table holding the orphan, and undoes it.
    private static func shoutingStep(in directory: TemporaryDirectory) throws -> SQLCipherMigrationStep {
        let folder = directory.path("shouting")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "-- migrate:up\nUPDATE children SET name = upper(name);\n-- migrate:down\nUPDATE children SET name = lower(name);\n"
            .write(toFile: folder + "/0002_shout.sql", atomically: true, encoding: .utf8)
        return try #require(SQLMigrationDirectory(path: folder).load().first.map { SQLCipherMigrationStep(file: $0) })
    }

    /// When a step meets violations nothing known says were there before, its whole
    /// transaction is rolled back and run again, learning them first; it is never undone
    /// to a savepoint, because SQLCipher 4 re-initialises page 1 from the journal's
    /// ciphertext when it rolls back to one, and once in about 6,000 rollbacks goes on
    /// with a garbled sqlite_master (a step then failed as "database is damaged").
    @Test(arguments: [MigrateOptions.Mode.perStep, .atomic, .dryRun], [MigrateOptions.Verification.changedTables, .wholeFile])
    func aStepThatMeetsOldViolationsRunsAgainInANewTransactionNeverUnderASavepoint(
        mode: MigrateOptions.Mode, verification: MigrateOptions.Verification
    ) throws {
        let (directory, writer) = try databaseWithAnOldOrphan()
        defer { withExtendedLifetime(directory) {} }
        let shout = try Self.shoutingStep(in: directory)
        let log = StatementLog()
        try writer.writeWithoutTransaction { log.record($0) }
        defer { withExtendedLifetime(log) {} }
        let report = try SQLCipherMigrationRunner(steps: [Self.family, shout]).migrate(in: writer, options: MigrateOptions(mode: mode, verification: verification))
        #expect(report.preexistingForeignKeyViolations?.groups.map(\.table) == ["children"])
        let statements = log.statements
        #expect(!statements.contains { $0.uppercased().hasPrefix("SAVEPOINT") || $0.uppercased().hasPrefix("ROLLBACK TO") }, "\(statements)")
        // Run twice, the first time in a transaction rolled back as a whole.
        let runs = statements.indices.filter { statements[$0].hasPrefix("UPDATE children") }
        #expect(runs.count == 2, "\(statements)")
        if runs.count == 2 {
            #expect(statements[runs[0]..<runs[1]].contains("ROLLBACK TRANSACTION"), "\(statements)")
        }
        let names = try writer.read { try $0.fetchStrings(sql: "SELECT name FROM children ORDER BY id") }
        #expect(names == (mode == .dryRun ? ["kept", "an old orphan"] : ["KEPT", "AN OLD ORPHAN"]))
    }

    /// Rolling back checks every table, so it meets the old orphan too: again a second
    /// transaction, never a savepoint, and observers hear of the step once.
    @Test func aRollbackThatMeetsOldViolationsRunsAgainInANewTransactionNeverUnderASavepoint() throws {
        let (directory, writer) = try databaseWithAnOldOrphan()
        defer { withExtendedLifetime(directory) {} }
        let shout = try Self.shoutingStep(in: directory)
        let tally = Tally()
        var runner = try SQLCipherMigrationRunner(steps: [Self.family, shout])
        try runner.migrate(in: writer)
        runner.observer = Self.observing(tally)
        let log = StatementLog()
        try writer.writeWithoutTransaction { log.record($0) }
        defer { withExtendedLifetime(log) {} }
        try runner.rollbackLastMigration(in: writer)
        let statements = log.statements
        #expect(!statements.contains { $0.uppercased().hasPrefix("SAVEPOINT") || $0.uppercased().hasPrefix("ROLLBACK TO") }, "\(statements)")
        #expect(statements.filter { $0.hasPrefix("UPDATE children") }.count == 2, "\(statements)")
        #expect(tally["willRollback 0002_shout"] == 1 && tally["didRollback 0002_shout"] == 1)
        #expect(try writer.read { try $0.fetchStrings(sql: "SELECT name FROM children ORDER BY id") } == ["kept", "an old orphan"])
    }
}
