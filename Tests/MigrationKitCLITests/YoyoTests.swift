import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// yoyo's SQL migrations and `_yoyo_migration`, read as yoyo reads them
/// (docs/coming-from/yoyo.md): ordered by their `-- depends:` lines and, among those ready,
/// by name; a row keyed by the SHA-256 of the migration's id; the rollback file as the
/// down SQL. Every database is one yoyo's own source would leave (`OtherToolFixture`).
@Suite struct YoyoTests {
    /// Names that sort against the dependencies: `b` depends on `c`, so yoyo runs `a`, `c`,
    /// `b`, and so does `migrate`; a database yoyo ran `a` and `c` on is adopted by the
    /// hashes of their ids, then `migrate` runs `b`; `rollback` runs its rollback file;
    /// `-- transactional: false` is a note.
    @Test func dependenciesOrderTheFolderAndIdsKeyTheLedger() throws {
        let workspace = try Workspace()
        try workspace.migration("0001.a-notes.sql", "-- notes\n-- depends:\n\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\n")
        try workspace.migration("0002.b-tags.sql", "-- tags\n-- depends: 0001.a-notes\n-- depends: 0003.c-notebooks\n-- transactional: false\n\nCREATE TABLE tags (noteId INTEGER REFERENCES notes(id), bookId INTEGER REFERENCES notebooks(id));\n")
        try workspace.migration("0002.b-tags.rollback.sql", "-- tags\nDROP TABLE tags;\n")
        try workspace.migration("0003.c-notebooks.sql", "-- notebooks\n-- depends: 0001.a-notes\n\nCREATE TABLE notebooks (id INTEGER PRIMARY KEY);\n")
        // yoyo's table, keyed by the SHA-256 of each id it applied, in the order it did.
        let made = try SQLCipherShell.run(workspace.database, keyPragma: workspace.key.pragma, """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
            INSERT INTO notes (body) VALUES ('kept');
            CREATE TABLE notebooks (id INTEGER PRIMARY KEY);
            CREATE TABLE "_yoyo_migration" ( migration_hash VARCHAR(64), migration_id VARCHAR(255), applied_at_utc TIMESTAMP, PRIMARY KEY (migration_hash));
            INSERT INTO "_yoyo_migration" VALUES ('\(try OtherToolFixture.sha256(ofText: "0001.a-notes"))', '0001.a-notes', '2024-01-01 00:00:00');
            INSERT INTO "_yoyo_migration" VALUES ('\(try OtherToolFixture.sha256(ofText: "0003.c-notebooks"))', '0003.c-notebooks', '2024-01-01 00:00:01');
            """)
        try #require(made.status == 0, "\(made.output)")

        let status = try workspace.run("status")
        #expect(status.stdout.contains("yoyo layout (detected from its files)") && status.stdout.contains("yoyo (its ledger's last version is 0003.c-notebooks)"), "\(status.output)")
        let adopt = try workspace.run("adopt")
        #expect(adopt.status == 0 && adopt.stdout.contains("Adopted 0001.a-notes") && adopt.stdout.contains("Adopted 0003.c-notebooks"), "\(adopt.output)")
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 0002.b-tags"), "\(migrate.output)")
        #expect(migrate.stderr.contains("0002.b-tags.sql:4: note[transaction-control]"), "\(migrate.stderr)")
        let rows = try SQLCipherShell.run(workspace.database, keyPragma: workspace.key.pragma, "SELECT identifier FROM grdb_migrations ORDER BY rowid; SELECT body FROM notes;")
        #expect(rows.stdout == "0001.a-notes\n0003.c-notebooks\n0002.b-tags\nkept\n", "\(rows.output)")
        #expect(try workspace.run("rollback", ["--no-backup"]).status == 0)
        let back = try SQLCipherShell.run(workspace.database, keyPragma: workspace.key.pragma, "SELECT count(*) FROM sqlite_master WHERE name = 'tags';")
        #expect(back.stdout == "0\n", "\(back.output)")

        // A new database runs them in yoyo's order.
        let fresh = try Workspace()
        for name in try FileManager.default.contentsOfDirectory(atPath: workspace.migrations) {
            try FileManager.default.copyItem(atPath: workspace.migrations + "/" + name, toPath: fresh.migrations + "/" + name)
        }
        let created = try fresh.run("migrate")
        #expect(created.status == 0, "\(created.output)")
        let order = try SQLCipherShell.run(fresh.database, keyPragma: fresh.key.pragma, "SELECT identifier FROM grdb_migrations ORDER BY rowid;")
        #expect(order.stdout == "0001.a-notes\n0003.c-notebooks\n0002.b-tags\n", "\(order.output)")
    }

    /// A row whose hash is of no migration's id (a migration renamed after yoyo applied
    /// it) is refused naming its id; a ledger that records a migration and not one it
    /// comes after is refused; a dependency on no migration, a loop, a post-apply
    /// migration and a rollback file without its migration are refused (exit 9); `new`
    /// says to use `yoyo new`.
    @Test func whatYoyoWouldNotRunIsRefused() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.yoyo, in: workspace, applied: 2, pending: 1)
        try FileManager.default.moveItem(atPath: fixture.upFiles[0], toPath: workspace.migrations + "/20240101_01_renamed.sql")
        let renamedDepends = try String(contentsOfFile: fixture.upFiles[1], encoding: .utf8).replacingOccurrences(of: fixture.identifiers[0], with: "20240101_01_renamed")
        try Data(renamedDepends.utf8).write(to: URL(fileURLWithPath: fixture.upFiles[1]))
        try FileManager.default.moveItem(atPath: workspace.migrations + "/\(fixture.identifiers[0]).rollback.sql", toPath: workspace.migrations + "/20240101_01_renamed.rollback.sql")
        let before = try TreeSnapshot(workspace.root)
        let renamed = try workspace.run("adopt")
        #expect(renamed.exitCode == .refused && renamed.stderr.contains("yoyo recorded version \(fixture.identifiers[0]), and no migration in the folder carries it"), "\(renamed.output)")
        try expectUnchanged(before, "a refused adopt")

        let new = try workspace.run("new", ["more"])
        #expect(new.exitCode == .usage && new.stderr.contains("write the next one with `yoyo new --sql`"), "\(new.output)")

        try workspace.migration("20240102_01_x-loop.sql", "-- depends: 20240102_02_y-loop\nSELECT 1;\n")
        try workspace.migration("20240102_02_y-loop.sql", "-- depends: 20240102_01_x-loop\nSELECT 2;\n")
        let loop = try workspace.run("status")
        #expect(loop.exitCode == .fileError && loop.stderr.contains("These migrations' `-- depends:` lines make a loop (20240102_01_x-loop, 20240102_02_y-loop)"), "\(loop.output)")
        try workspace.migration("20240102_02_y-loop.sql", "-- depends: 20240102_00_gone\nSELECT 2;\n")
        try workspace.migration("post-apply.sql", "-- depends:\nANALYZE;\n")
        try workspace.migration("20240103_01_z.rollback.sql", "SELECT 1;\n")
        let status = try workspace.run("status")
        #expect(status.exitCode == .fileError, "\(status.output)")
        for words in ["20240102_02_y-loop.sql: This migration depends on \"20240102_00_gone\", which is no migration of this folder",
                      "post-apply.sql: yoyo runs this post-apply migration again after every run", "20240103_01_z.rollback.sql: There is no 20240103_01_z.sql for this rollback file"] {
            #expect(status.stderr.contains(words), "\(words): \(status.stderr)")
        }
    }
}
