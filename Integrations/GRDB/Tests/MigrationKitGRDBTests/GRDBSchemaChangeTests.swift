import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import Testing

/// Erase-on-schema-change and the commands' explanation of it (`schemaChange(in:)`), with
/// the configurations GRDB fixed its own comparison for: a `prepareDatabase` that needs
/// a file (GRDB #931), and target queues (GRDB #741); and steps that run without the
/// app's `schemaSource` however they are run.
@Suite struct GRDBSchemaChangeTests {
    /// A preparation that works on a file database only: SQLite's own temporary
    /// databases cannot be in WAL mode. (WAL rather than a rollback mode that keeps its
    /// journal: GRDB removes its own scratch file afterwards, not its journals.)
    private static func needingAFile() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            if mode != "wal" { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "journal_mode is \(mode ?? "unknown")") }
        }
        return configuration
    }

    private static func steps(withScore: Bool) -> GRDBMigrationRunner {
        var runner = GRDBMigrationRunner()
        runner.registerMigration("player") { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
                if withScore { t.column("score", .integer) }
            }
        }
        return runner
    }

    /// Runs `body` on a thread of its own; false if it did not finish within 30 s (a
    /// deadlock), leaving the thread behind rather than the test run.
    private func finishes(_ body: @escaping @Sendable () throws -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let failure = Trace()
        Thread.detachNewThread {
            do { try body() } catch { failure.append("\(error)") }
            done.signal()
        }
        let finished = done.wait(timeout: .now() + 30) == .success
        #expect(failure.all.isEmpty, "\(failure.all)")
        return finished
    }

    @Test(arguments: [MigrateOptions.Mode.perStep, .atomic])
    func erasingWorksWhenThePreparationNeedsAFile(_ mode: MigrateOptions.Mode) throws {
        let scratch = try ScratchDatabase()
        let writer = try DatabaseQueue(path: scratch.path, configuration: Self.needingAFile())
        try Self.steps(withScore: false).migrate(writer)
        var changed = Self.steps(withScore: true)
        #expect(try writer.read { try changed.hasSchemaChanges($0) })
        let change = try changed.schemaChange(in: writer)
        #expect(change?.description == "the schema differs from what the applied migrations produce today")
        changed.eraseDatabaseOnSchemaChange = true
        try changed.migrate(in: writer, options: MigrateOptions(mode: mode))
        #expect(try writer.read { try $0.columns(in: "player").map(\.name) } == ["id", "name", "score"])
        #expect(try writer.read { try changed.hasSchemaChanges($0) } == false)
        #expect(try changed.schemaChange(in: writer) == nil)
    }

    @Test(arguments: ["targetQueue", "writeTargetQueue"], [MigrateOptions.Mode.perStep, .atomic])
    func erasingDoesNotDeadlockOnATargetQueue(_ queue: String, _ mode: MigrateOptions.Mode) throws {
        let scratch = try ScratchDatabase()
        var configuration = Configuration()
        if queue == "targetQueue" {
            configuration.targetQueue = DispatchQueue(label: "target")
        } else {
            configuration.writeTargetQueue = DispatchQueue(label: "writeTarget")
        }
        let writer = try DatabaseQueue(path: scratch.path, configuration: configuration)
        try Self.steps(withScore: false).migrate(writer)
        var erasing = Self.steps(withScore: true)
        erasing.eraseDatabaseOnSchemaChange = true
        let changed = erasing
        let explained = Trace()
        let finished = finishes {
            explained.append("before: \(try changed.schemaChange(in: writer) != nil)")
            try changed.migrate(in: writer, options: MigrateOptions(mode: mode))
            explained.append("after: \(try changed.schemaChange(in: writer) != nil)")
        }
        #expect(finished)
        #expect(explained.all == ["before: true", "after: false"])
    }

    /// Steps read the schema as SQLite has it, whichever way they run: GRDB's migrator
    /// hides the app's `schemaSource` from them, and so do the atomic and dry runs.
    @Test(arguments: [MigrateOptions.Mode.perStep, .atomic, .dryRun])
    func stepsRunWithoutTheAppsSchemaSource(_ mode: MigrateOptions.Mode) throws {
        struct ViewsHaveIds: DatabaseSchemaSource {
            func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? { ["id"] }
        }
        let scratch = try ScratchDatabase()
        var configuration = Configuration()
        configuration.schemaSource = ViewsHaveIds()
        let writer = try DatabaseQueue(path: scratch.path, configuration: configuration)
        let seen = Trace()
        var runner = GRDBMigrationRunner()
        runner.registerMigration("view") { db in
            try db.execute(sql: "CREATE VIEW v AS SELECT 1 AS id")
            seen.append(db.schemaSource == nil ? "no schema source" : "the app's schema source")
        }
        try runner.migrate(in: writer, options: MigrateOptions(mode: mode))
        #expect(seen.all == ["no schema source"])
        #expect(try writer.read { $0.schemaSource } != nil)
    }
}
