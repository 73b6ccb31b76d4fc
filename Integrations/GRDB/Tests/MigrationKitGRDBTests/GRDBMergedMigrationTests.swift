import Foundation
import GRDB
import GRDBTestSupport
@testable import MigrationKit
@testable import MigrationKitGRDB
import Testing

/// Merged migrations (`registerMigration(_:merging:migrate:)`), one case per starting
/// version and per way of merging, each run by GRDB's own `DatabaseMigrator` and by the
/// runner, step by step and atomically, on databases of their own: the same steps run,
/// given the same applied identifiers, to the same ledger and the same tables. (GRDB's
/// `DatabaseMigratorTests` run the same cases in one test each, through
/// `DatabaseMigratorTestsOnRunner`.)
@Suite struct GRDBMergedMigrationTests {
    /// How the new version merges v2, v3 and v4, as GRDB's tests do.
    enum Merge: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// `v4` merging v2 and v3.
        case namedLikeTheLast
        /// `v4` merging v2, v3 and itself (GRDB ignores its own name).
        case includingItself
        /// `v4bis` merging v2, v3 and v4.
        case withANewName

        var testDescription: String { rawValue }

        var identifier: String { self == .withANewName ? "v4bis" : "v4" }
        var merged: Set<String> {
            switch self {
            case .namedLikeTheLast: return ["v2", "v3"]
            case .includingItself: return ["v2", "v3", "v4"]
            case .withANewName: return ["v2", "v3", "v4"]
            }
        }
    }

    /// Who runs the new version's steps.
    enum Migrator: CaseIterable {
        case grdb, runner, runnerAtomically
    }

    /// What a run left: the ledger, the tables, and each closure's call with what it
    /// was given.
    struct Outcome: Equatable {
        let ledger: [String]
        let tables: Set<String>
        let calls: [String]
    }

    /// The closures' calls, in order.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var calls: [String] = []
        func record(_ call: String) { lock.withLock { calls.append(call) } }
        var all: [String] { lock.withLock { calls } }
    }

    private static func createTable(_ version: Int) -> @Sendable (Database) throws -> Void {
        { db in try db.execute(sql: "CREATE TABLE t\(version)(a)") }
    }

    /// The new version's v4 (or v4bis): creates the tables of the merged steps the
    /// database has not applied, as GRDB's tests write it.
    private static func mergedBody(_ merge: Merge, calls: Calls) -> @Sendable (Database, Set<String>) throws -> Void {
        { db, applied in
            calls.record("\(merge.identifier) given \(applied.sorted())")
            for version in 2...3 where !applied.contains("v\(version)") { try createTable(version)(db) }
            if merge != .withANewName || !applied.contains("v4") { try createTable(4)(db) }
        }
    }

    private func run(_ merge: Merge, from start: Int, with migrator: Migrator) throws -> Outcome {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        if start > 0 {
            var old = DatabaseMigrator()
            for version in 1...5 { old.registerMigration("v\(version)", migrate: Self.createTable(version)) }
            try old.migrate(writer, upTo: "v\(start)")
        }
        let calls = Calls()
        let v1: @Sendable (Database) throws -> Void = { db in calls.record("v1"); try Self.createTable(1)(db) }
        let v5: @Sendable (Database) throws -> Void = { db in calls.record("v5"); try Self.createTable(5)(db) }
        switch migrator {
        case .grdb:
            var new = DatabaseMigrator()
            new.registerMigration("v1", migrate: v1)
            new.registerMigration(merge.identifier, merging: merge.merged, migrate: Self.mergedBody(merge, calls: calls))
            new.registerMigration("v5", migrate: v5)
            try new.migrate(writer)
        case .runner, .runnerAtomically:
            var new = GRDBMigrationRunner()
            new.registerMigration("v1", migrate: v1)
            new.registerMigration(merge.identifier, merging: merge.merged, migrate: Self.mergedBody(merge, calls: calls))
            new.registerMigration("v5", migrate: v5)
            try new.migrate(in: writer, options: MigrateOptions(mode: migrator == .runner ? .perStep : .atomic))
        }
        return try writer.read { db in
            Outcome(ledger: try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier"),
                    tables: Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 't%'")),
                    calls: calls.all)
        }
    }

    @Test(arguments: Merge.allCases, 0...5)
    func aMergedStepRunsAsGRDBRunsIt(_ merge: Merge, _ start: Int) throws {
        let grdb = try run(merge, from: start, with: .grdb)
        #expect(grdb.tables == ["t1", "t2", "t3", "t4", "t5"], "GRDB's own outcome: \(grdb)")
        #expect(try run(merge, from: start, with: .runner) == grdb)
        #expect(try run(merge, from: start, with: .runnerAtomically) == grdb)
    }

    /// The case, as GRDB's documentation writes a merge: a database at v2, and a
    /// new version whose v3 replaces v1 and v2. GRDB runs v3, told both are applied; it
    /// is not recorded without running.
    @Test(arguments: [MigrateOptions.Mode.perStep, .atomic])
    func aMergeOfAppliedStepsRunsItsClosure(_ mode: MigrateOptions.Mode) throws {
        let scratch = try ScratchDatabase()
        let writer = try scratch.queue()
        var old = DatabaseMigrator()
        old.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE t1(a)") }
        old.registerMigration("v2") { db in try db.execute(sql: "CREATE TABLE t2(a)") }
        try old.migrate(writer)

        let calls = Calls()
        var runner = GRDBMigrationRunner()
        runner.registerMigration("v3", merging: ["v1", "v2"]) { db, applied in
            calls.record("v3 given \(applied.sorted())")
            if !applied.contains("v1") { try db.execute(sql: "CREATE TABLE t1(a)") }
            if !applied.contains("v2") { try db.execute(sql: "CREATE TABLE t2(a)") }
            try db.execute(sql: "CREATE TABLE t3(a)")
        }
        let report = try runner.migrate(in: writer, options: MigrateOptions(mode: mode))
        #expect(report.identifiers == ["v3"])
        #expect(calls.all == ["v3 given [\"v1\", \"v2\"]"])
        #expect(try writer.read { try $0.tableExists("t3") })
        #expect(try writer.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") } == ["v3"])
        #expect(try runner.hasCompletedMigrations(in: writer))
    }
}
