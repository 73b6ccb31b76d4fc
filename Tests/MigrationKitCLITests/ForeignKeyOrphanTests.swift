import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// A database whose app never enabled foreign keys carries orphan rows. Migrations
/// must still run: only violations a step adds fail it; the ones already there are a
/// warning naming table, row id and parent table.
@Suite struct ForeignKeyOrphanTests {
    /// Authors and books, with two books whose author never existed (rowid 2 and 3).
    private func workspaceWithOrphans() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.migration("0001_authors.sql", "-- migrate:up\nCREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n-- migrate:down\nDROP TABLE authors;\n")
        try workspace.migration("0002_books.sql", """
            -- migrate:up
            CREATE TABLE books (id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES authors(id) ON DELETE CASCADE, title TEXT);
            -- migrate:down
            DROP TABLE books;
            """)
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        let insert = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            PRAGMA foreign_keys = OFF;
            INSERT INTO authors (id, name) VALUES (1, 'Ann');
            INSERT INTO books (id, authorId, title) VALUES (1, 1, 'kept'), (2, 77, 'orphan'), (3, 78, 'orphan too');
            """)
        #expect(insert.status == 0, "\(insert.output)")
        return workspace
    }

    private func backups(_ workspace: Workspace) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workspace.root).filter { $0.contains(".backup-") }
    }

    /// Verifying the whole file, the run meets the orphans and names them.
    @Test(arguments: [[String](), ["--atomic"]])
    func anUnrelatedMigrationVerifiedInFullRunsAndNamesTheOrphansItFound(_ mode: [String]) throws {
        let workspace = try workspaceWithOrphans()
        try workspace.migration("0003_tags.sql", "-- migrate:up\nCREATE TABLE tags (name TEXT);\n-- migrate:down\nDROP TABLE tags;\n")
        let migrate = try workspace.run("migrate", mode + ["--verify", "full"])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(migrate.stderr.contains("already had 2 rows referencing a missing parent"), "\(migrate.stderr)")
        #expect(migrate.stderr.contains("books rowid 2, 3 → authors") && migrate.stderr.contains("existing data is at fault"), "\(migrate.stderr)")
        #expect(try backups(workspace).count == 1)
        // Rolling back works too, with the same warning.
        let rollback = try workspace.run("rollback", ["--no-backup"])
        #expect(rollback.status == 0 && rollback.stderr.contains("books rowid 2, 3 → authors"), "\(rollback.output)")
        // Nothing pending: still a success.
        #expect(try workspace.run("migrate", ["--to", "0002_books", "--no-backup"]).status == 0)
    }

    /// Verifying what changed (the default), a migration that does not touch books or
    /// authors never reads them: it runs, and has nothing to say about their orphans.
    @Test(arguments: [[String](), ["--atomic"]])
    func anUnrelatedMigrationVerifiesOnlyWhatItChanged(_ mode: [String]) throws {
        let workspace = try workspaceWithOrphans()
        try workspace.migration("0003_tags.sql", "-- migrate:up\nCREATE TABLE tags (name TEXT);\n-- migrate:down\nDROP TABLE tags;\n")
        let migrate = try workspace.run("migrate", mode + ["--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(!migrate.stderr.contains("missing parent"), "\(migrate.stderr)")
        #expect(migrate.stdout.contains("verification passed (quick_check") && !migrate.stdout.contains("cipher_integrity_check"), "\(migrate.stdout)")
        // verify still reads every table.
        #expect(try workspace.run("verify").exitCode == .verificationFailed)
    }

    @Test(arguments: [false, true])
    func aMigrationThatAddsOrphansFailsAndSaysItIsAtFault(_ withOldOrphans: Bool) throws {
        let workspace = withOldOrphans ? try workspaceWithOrphans() : try {
            let clean = try workspaceWithOrphans()
            _ = try SQLCipherShell.run(clean.database, key: clean.key, "DELETE FROM books WHERE id > 1;")
            return clean
        }()
        // Relies on ON DELETE CASCADE, which does not fire while foreign keys are off.
        try workspace.migration("0003_drop_ann.sql", "-- migrate:up\nDELETE FROM authors WHERE name = 'Ann';\n")
        let before = workspace.bytes(workspace.database)
        for mode in [["--no-backup"], ["--atomic", "--no-backup"]] {
            let migrate = try workspace.run("migrate", mode)
            #expect(migrate.exitCode == .migrationFailed, "\(migrate.output)")
            #expect(migrate.stderr.contains("0003_drop_ann") && migrate.stderr.contains("the migration is at fault"), "\(migrate.stderr)")
            #expect(migrate.stderr.contains("books rowid 1 → authors") && migrate.stderr.contains("ON DELETE CASCADE"), "\(migrate.stderr)")
            #expect(!migrate.stderr.contains("rowid 2"), "only the violation the migration added is its fault: \(migrate.stderr)")
            #expect(workspace.bytes(workspace.database) == before)
        }
    }

    @Test func verifyListsTheOrphans() throws {
        let workspace = try workspaceWithOrphans()
        let verify = try workspace.run("verify")
        #expect(verify.exitCode == .verificationFailed, "\(verify.output)")
        #expect(verify.stdout.contains("FAILED foreign_key_check: 2 rows reference a missing parent (books rowid 2, 3 → authors)"), "\(verify.stdout)")
    }
}
