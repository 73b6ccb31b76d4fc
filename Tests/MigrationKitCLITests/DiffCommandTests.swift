import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// `migrationkit diff`: drift between a database's schema and what its applied
/// migrations make, run in this process (`Tool`), with the `sqlcipher` shell changing
/// the schema by hand as an operator would.
@Suite struct DiffCommandTests {
    func migratedWorkspace() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        return workspace
    }

    func byHand(_ workspace: Workspace, _ sql: String) throws {
        let shell = try SQLCipherShell.run(workspace.database, key: workspace.key, sql)
        #expect(shell.status == 0, "\(shell.output)")
    }

    @Test func aDatabaseItsMigrationsMadeHasNoDrift() throws {
        let workspace = try migratedWorkspace()
        let before = workspace.bytes(workspace.database)
        let diff = try workspace.run("diff")
        #expect(diff.status == 0, "\(diff.output)")
        #expect(diff.stdout.contains("No drift: the schema is what its 2 applied migrations make."), "\(diff.stdout)")
        #expect(workspace.bytes(workspace.database) == before, "diff changed the database")
        #expect(!diff.output.contains(workspace.key.secret))
    }

    /// An index added by hand, a column an old app version added, an index dropped by
    /// hand: each named, exit 3, and the database unchanged.
    @Test func changesByHandAreListedWithExitCode3() throws {
        let workspace = try migratedWorkspace()
        try byHand(workspace, """
            CREATE INDEX books_title ON books(title);
            ALTER TABLE authors ADD COLUMN nickname TEXT;
            DROP INDEX books_authorId;
            """)
        let before = workspace.bytes(workspace.database)
        let diff = try workspace.run("diff")
        #expect(diff.status == 3, "\(diff.output)")
        let lines = diff.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Drift: the schema differs from what its 2 applied migrations make") }, "\(diff.stdout)")
        #expect(lines.contains("  table authors: differs (the database has CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, nickname TEXT); the migrations make CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL))"), "\(diff.stdout)")
        #expect(lines.contains("  index books_authorId: missing from the database (the migrations make CREATE INDEX books_authorId ON books (authorId))"), "\(diff.stdout)")
        #expect(lines.contains("  index books_title: only in the database (CREATE INDEX books_title ON books (title))"), "\(diff.stdout)")
        #expect(workspace.bytes(workspace.database) == before, "diff changed the database")

        let json = try workspace.run("diff", ["--json"])
        #expect(json.status == 3, "\(json.output)")
        let document = try decodeJSON(json.stdout)
        #expect(document["drift"] as? Bool == true)
        #expect(document["applied"] as? [String] == ["0001_authors", "0002_books"])
        let differences = try #require(document["differences"] as? [[String: Any]])
        #expect(differences.map { "\($0["type"] ?? "") \($0["name"] ?? "") \($0["change"] ?? "")" }
            == ["table authors changed", "index books_authorId missing", "index books_title added"])
        #expect(differences.allSatisfy { Set($0.keys) == ["type", "name", "change", "expected", "actual"] })
    }

    /// Spelling never counts: the same objects written another way by hand are no drift.
    @Test func theSameSchemaSpelledAnotherWayIsNoDrift() throws {
        let workspace = try migratedWorkspace()
        try byHand(workspace, """
            DROP INDEX books_authorId;
            create   index "books_authorId" on "books" ( authorId );
            """)
        let diff = try workspace.run("diff")
        #expect(diff.status == 0, "\(diff.output)")
    }

    /// Without the migrations that made it, or with one skipped, there is nothing to
    /// compare with: refused (exit 7) with a sentence that says what to do.
    @Test func migrationsThatCannotMakeTheDatabaseAreRefused() throws {
        let workspace = try migratedWorkspace()
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_books.up.sql")
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_books.down.sql")
        let unknown = try workspace.run("diff")
        #expect(unknown.status == 7, "\(unknown.output)")
        #expect(unknown.stderr.contains("has applied migrations that --migrations does not have (0002_books)"), "\(unknown.stderr)")

        let skipped = try Workspace()
        try skipped.migration("0002_b.sql", "-- migrate:up\nCREATE TABLE b (id INTEGER PRIMARY KEY);\n")
        #expect(try skipped.run("migrate", ["--no-backup"]).status == 0)
        try skipped.migration("0001_a.sql", "-- migrate:up\nCREATE TABLE a (id INTEGER PRIMARY KEY);\n")
        let gap = try skipped.run("diff")
        #expect(gap.status == 7, "\(gap.output)")
        #expect(gap.stderr.contains("(0001_a)") && gap.stderr.contains("--allow-out-of-order"), "\(gap.stderr)")
    }

    /// A database another app made: the app created its table (before its first
    /// migration, which `--accept-existing-tables` lets migrate), and the folder's
    /// migrations only change it, so they fail on the empty scratch database drift is
    /// made in. diff says the replay failed there, that the database is unchanged, and
    /// how `baseline` records a first migration that makes the app's table (exit 7: the
    /// migrations cannot make the database). Done as it says, there is no drift.
    @Test func aDatabaseAnotherAppMadeNamesTheScratchDatabaseAndBaseline() throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);")
        try #require(made.status == 0, "\(made.output)")
        try workspace.migration("0001_pinned.sql", """
            -- migrate:up
            ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
            """)
        #expect(try workspace.run("migrate", ["--accept-existing-tables", "--no-backup"]).status == 0)
        let before = workspace.bytes(workspace.database)
        let diff = try workspace.run("diff")
        #expect(diff.status == 7, "\(diff.output)")
        for words in ["diff replays the applied migrations on an empty scratch database", "0001_pinned failed there",
                      "0001_pinned.sql:2: no such table: notes", "\(workspace.database) itself was only read and is unchanged",
                      "as when another app made its tables", "`baseline --to 0001_pinned` (docs/commands.md#baseline)"] {
            #expect(diff.stderr.contains(words), "missing \"\(words)\": \(diff.stderr)")
        }
        #expect(!diff.stderr.contains("was rolled back"), "\(diff.stderr)")
        #expect(workspace.bytes(workspace.database) == before, "diff changed the database")
        let json = try workspace.run("diff", ["--json"])
        try expectJSONError(json, .refused, "diff --json")

        // As the sentence says: the app's table as the first migration, recorded.
        try workspace.migration("0000_app_schema.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n")
        #expect(try workspace.run("baseline", ["--to", "0001_pinned"]).status == 0)
        let again = try workspace.run("diff")
        #expect(again.status == 0 && again.stdout.contains("No drift"), "\(again.output)")
    }

    /// A migration edited after it was applied that no longer replays: the same
    /// sentence says so, instead of naming baseline.
    @Test func anEditedMigrationThatNoLongerReplaysIsNamed() throws {
        let workspace = try migratedWorkspace()
        try workspace.migration("0002_books.up.sql", "CREATE INDEX books_title ON missing_table(title);\n")
        let diff = try workspace.run("diff")
        #expect(diff.status == 7, "\(diff.output)")
        #expect(diff.stderr.contains("0002_books failed there") && diff.stderr.contains("was edited after it was applied")
                    && diff.stderr.contains("only read and is unchanged") && !diff.stderr.contains("baseline"), "\(diff.stderr)")
    }
}
