import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// SQLDelight's `.sqm` files read as SQLDelight reads them (docs/coming-from/sqldelight.md):
/// `N.sqm` takes the schema from version N to N + 1, a name's number is its first run of
/// digits, and the database's `user_version` is the version it is at, so every file
/// numbered below it is applied. Every database is one SQLDelight's driver would leave
/// (`OtherToolFixture`).
@Suite struct SQLDelightTests {
    /// A folder whose numbers skip one, a name with more than the number, and the schema
    /// at version 1 written as `0.sqm` (which SQLDelight runs only from version 0): a
    /// database at `user_version` 3 has every file below 3, adopted and proven; `migrate`
    /// runs the rest; a new database runs them all from `0.sqm`.
    @Test func userVersionIsTheSchemaVersionTheFilesTakeItTo() throws {
        let workspace = try Workspace()
        try FileManager.default.createDirectory(atPath: workspace.migrations, withIntermediateDirectories: true)
        try workspace.migration("0.sqm", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n")
        try workspace.migration("v1_tags.sqm", "CREATE TABLE tags (id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL REFERENCES notes(id));\n")
        try workspace.migration("2.sqm", "ALTER TABLE notes ADD COLUMN title TEXT;\n")
        try workspace.migration("4.sqm", "CREATE INDEX notes_by_title ON notes (title);\n")
        // SQLDelight created this database at version 1 (its .sq files' schema then), and
        // its Schema.migrate ran 1.sqm and 2.sqm, leaving user_version 3.
        let made = try SQLCipherShell.run(workspace.database, keyPragma: workspace.key.pragma, """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
            INSERT INTO notes (body) VALUES ('kept');
            CREATE TABLE tags (id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL REFERENCES notes(id));
            ALTER TABLE notes ADD COLUMN title TEXT;
            PRAGMA user_version = 3;
            """)
        try #require(made.status == 0, "\(made.output)")

        let status = try workspace.run("status")
        #expect(status.stdout.contains("sqldelight layout (detected from its files)"), "\(status.output)")
        #expect(status.stdout.contains("a `PRAGMA user_version` ladder (at 3)") && status.stdout.contains("every N.sqm with N below 3"), "\(status.output)")
        let adopt = try workspace.run("adopt")
        #expect(adopt.status == 0 && adopt.stdout.contains("Recorded 3 migrations from the `PRAGMA user_version` ladder (at 3)"), "\(adopt.output)")
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 4"), "\(migrate.output)")
        let rows = try SQLCipherShell.run(workspace.database, keyPragma: workspace.key.pragma,
                                          "SELECT identifier FROM grdb_migrations ORDER BY rowid; SELECT body FROM notes; SELECT count(*) FROM sqlite_master WHERE name = 'notes_by_title';")
        #expect(rows.stdout == "0\nv1_tags\n2\n4\nkept\n1\n", "\(rows.output)")

        let fresh = try Workspace()
        for name in try FileManager.default.contentsOfDirectory(atPath: workspace.migrations) {
            try FileManager.default.copyItem(atPath: workspace.migrations + "/" + name, toPath: fresh.migrations + "/" + name)
        }
        let created = try fresh.run("migrate")
        #expect(created.status == 0 && created.stdout.contains("Applied 0") && created.stdout.contains("Applied 4"), "\(created.output)")
    }

    /// A database newer than the folder (its `user_version` beyond the last file's number
    /// plus one) is refused naming both numbers; two files of one version are refused, as
    /// are SQLDelight's `import` and Kotlin column types, which SQLite does not read; `new`
    /// writes the next `N.sqm`.
    @Test func whatSQLDelightsFilesCannotBeAreRefusedByName() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.sqlDelight, in: workspace, applied: 2, pending: 1)
        _ = try fixture.query(workspace, "PRAGMA user_version = 9;")
        let before = try TreeSnapshot(workspace.root)
        let newer = try workspace.run("adopt")
        #expect(newer.exitCode == .refused && newer.stderr.contains("its `PRAGMA user_version` is 9, and the folder's .sqm files take the schema to version 4"), "\(newer.output)")
        try expectUnchanged(before, "a refused adopt")

        try workspace.migration("2_again.sqm", "SELECT 1;\n")
        let twice = try workspace.run("status")
        #expect(twice.exitCode == .fileError && twice.stderr.contains("are both version 2 of SQLDelight's layout"), "\(twice.output)")
        try FileManager.default.removeItem(atPath: workspace.migrations + "/2_again.sqm")

        try workspace.migration("4.sqm", "import kotlin.Boolean;\n\nALTER TABLE notes ADD COLUMN pinned INTEGER AS Boolean NOT NULL DEFAULT 0;\n")
        let imported = try workspace.run("status")
        #expect(imported.exitCode == .fileError && imported.stderr.contains("4.sqm:1: `import` is SQLDelight's"), "\(imported.output)")
        try workspace.migration("4.sqm", "ALTER TABLE notes ADD COLUMN pinned INTEGER AS Boolean NOT NULL DEFAULT 0;\n")
        let typed = try workspace.run("status")
        #expect(typed.exitCode == .fileError && typed.stderr.contains("4.sqm:1: `AS Boolean` gives a column SQLDelight's Kotlin type"), "\(typed.output)")
        // SQLite's own `AS`: a generated column, a table made by a query.
        try workspace.migration("4.sqm", "ALTER TABLE notes ADD COLUMN shout TEXT AS (upper(body));\nCREATE TABLE copy AS SELECT id FROM notes;\n")
        let generated = try workspace.run("status")
        #expect(generated.exitCode != .fileError, "\(generated.output)")

        try FileManager.default.removeItem(atPath: workspace.migrations + "/4.sqm")
        let new = try workspace.run("new", ["pin_notes"])
        #expect(new.status == 0 && FileManager.default.fileExists(atPath: workspace.migrations + "/4.sqm"), "\(new.output)")
    }
}
