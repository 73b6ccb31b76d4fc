import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// `optimize` writes the query planner's statistics where SQLite finds them missing or
/// stale, and says which tables' statistics changed as `sqlite_stat1` shows them, never
/// what it merely asked SQLite to do.
@Suite struct OptimizeCommandTests {
    private func workspaceWithIndexedRows() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.migration("0001_items.sql", """
            -- migrate:up
            CREATE TABLE items (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT);
            CREATE INDEX items_kind ON items(kind);
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
            INSERT INTO items (kind, name) SELECT 'kind ' || (i % 7), 'item ' || i FROM n;
            """)
        #expect(try workspace.run("migrate", ["--no-backup", "-q"]).status == 0)
        return workspace
    }

    private func statistics(_ workspace: Workspace) throws -> [String] {
        try SQLCipherWriter(path: workspace.database, key: workspace.databaseKey).read { db in
            guard try db.fetchInt(sql: "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'") == 1 else { return [] }
            return try db.fetchStrings(sql: "SELECT tbl || ' ' || coalesce(idx, '') || ' ' || stat FROM sqlite_stat1 ORDER BY 1")
        }
    }

    @Test func aNeverAnalyzedIndexGetsStatisticsAndASecondRunSaysTheyAreCurrent() throws {
        let workspace = try workspaceWithIndexedRows()
        #expect(try statistics(workspace).isEmpty)

        let first = try workspace.run("optimize")
        #expect(first.status == 0, "\(first.output)")
        // The ledger's and history's own indexes get statistics too: every table with an
        // index is named, MigrationKit's own included.
        #expect(first.stdout.contains("Refreshed the query planner's statistics of 3 tables in \(workspace.database): grdb_migrationkit_history, grdb_migrations, items."), "\(first.output)")
        let written = try statistics(workspace)
        #expect(written.contains("items items_kind 2000 286") && !written.contains { $0.hasPrefix("notes ") }, "\(written)")

        let second = try workspace.run("optimize", ["--json"])
        #expect(second.status == 0, "\(second.output)")
        let document = try decodeJSON(second.stdout)
        #expect(document["refreshed"] as? [String] == [], "\(second.output)")
        #expect(try statistics(workspace) == written)
        #expect(try workspace.run("optimize").stdout.contains("are current; nothing was changed"))
    }

    /// Statistics are the database's: a change of them waits for a running migration as
    /// any change does, and a database that is not there is not made.
    @Test func aMissingDatabaseIsRefusedAndNotCreated() throws {
        let workspace = try Workspace()
        let result = try workspace.run("optimize")
        #expect(result.status == 9, "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
    }
}
