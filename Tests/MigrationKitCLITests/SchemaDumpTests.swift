import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// `schema-dump` is canonical: equal schemas give byte-identical text, however they were
/// written (a 12-step recreation stores `CREATE TABLE "t"`; keyword case, quoting,
/// spacing and comments vary), so a diff of production against a fresh install shows
/// real changes only; names keep their spelling, since apps read columns by it.
@Suite struct SchemaDumpTests {
    private func dump(_ migrations: [(String, String)]) throws -> String {
        let workspace = try Workspace()
        for (name, text) in migrations { try workspace.migration(name, text) }
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        let dump = try workspace.run("schema-dump")
        #expect(dump.status == 0, "\(dump.output)")
        return dump.stdout
    }

    @Test func equalSchemasDumpIdenticallyHoweverTheyWereWritten() throws {
        let direct = try dump([("0001_books.sql", """
            -- migrate:up
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, "year" INTEGER);
            CREATE INDEX books_title ON books(title);
            """)])
        let recreated = try dump([
            ("0001_books.sql", "-- migrate:up\nCREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT);\n"),
            ("0002_recreate.sql", """
                -- migrate:up
                create table   "books_new"(   -- the 12-step way
                    id integer primary key,
                    title text not null, /* a comment */ [year] INTEGER
                );
                INSERT INTO books_new (id, title) SELECT id, coalesce(title, '') FROM books;
                DROP TABLE books;
                ALTER TABLE books_new RENAME TO books;
                CREATE INDEX "books_title" ON "books" ("title");
                """),
        ])
        #expect(direct == recreated, "\n\(direct)\n---\n\(recreated)")
        #expect(direct.contains("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER);"), "\(direct)")
    }

    /// `PRAGMA table_info` and every row an app reads spell a column as its statement
    /// does: the dump keeps each name's case, a keyword used as a name included, so a
    /// name spelled otherwise is a difference.
    @Test func namesKeepTheirSpelling() throws {
        let camel = try dump([("0001_notes.sql", """
            -- migrate:up
            CREATE TABLE Notes (id INTEGER PRIMARY KEY, userId INTEGER NOT NULL, action TEXT, "Key" TEXT);
            CREATE INDEX index_Notes_userId ON Notes(userId);
            """)])
        #expect(camel.contains("CREATE TABLE Notes (id INTEGER PRIMARY KEY, userId INTEGER NOT NULL, action TEXT, Key TEXT);"), "\(camel)")
        #expect(camel.contains("CREATE INDEX index_Notes_userId ON Notes (userId);"), "\(camel)")
        let lower = try dump([("0001_notes.sql", """
            -- migrate:up
            CREATE TABLE notes (id INTEGER PRIMARY KEY, userid INTEGER NOT NULL, action TEXT, "key" TEXT);
            CREATE INDEX index_notes_userid ON notes(userid);
            """)])
        #expect(camel != lower)
    }

    /// A column named like a type keeps its name's spelling (`Text TEXT`, not `TEXT
    /// TEXT`), and the dump still builds the same schema in the shell.
    @Test func aColumnNamedLikeATypeStaysAName() throws {
        let dumped = try dump([("0001_notes.sql", """
            -- migrate:up
            CREATE TABLE notes (id INTEGER PRIMARY KEY, Text TEXT NOT NULL, "integer" integer, real REAL);
            CREATE INDEX notes_text ON notes(TEXT, real);
            CREATE VIEW notes_texts AS SELECT notes.text FROM notes;
            """)])
        // A quoted name SQLite reads bare there is written bare.
        #expect(dumped.contains("CREATE TABLE notes (id INTEGER PRIMARY KEY, Text TEXT NOT NULL, integer INTEGER, real REAL);"), "\(dumped)")
        #expect(dumped.contains("CREATE INDEX notes_text ON notes (TEXT, real);") && dumped.contains("SELECT notes.text FROM notes"), "\(dumped)")
    }

    /// "The schema as canonical SQL": the sqlite3 shell builds the same schema from it,
    /// triggers (whose bodies hold `;`) included.
    @Test func theDumpIsSQLTheShellRuns() throws {
        let text = try dump([("0001_t.sql", """
            -- migrate:up
            CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER);
            CREATE TABLE log (id INTEGER);
            CREATE TRIGGER t_logged AFTER INSERT ON t BEGIN
                INSERT INTO log VALUES (new.id);
                UPDATE t SET n = 1 WHERE id = new.id;
            END;
            CREATE VIEW v AS SELECT id FROM t;
            """)])
        #expect(text.contains("BEGIN INSERT INTO log VALUES (new.id); UPDATE t SET n = 1 WHERE id = new.id; END;"), "\(text)")
        let directory = try TemporaryDirectory()
        let rebuilt = directory.url.appendingPathComponent("rebuilt.db").path
        let shell = try ChildProcess.run([SQLCipherShell.path, "-batch", "-bail", rebuilt], stdin: Data(text.utf8))
        #expect(shell.status == 0, "\(shell.output)")
        let again = try ChildProcess.run([SQLCipherShell.path, "-batch", rebuilt, "SELECT count(*) FROM sqlite_master;"], stdin: nil)
        #expect(again.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "4", "\(again.output)")
    }

    @Test func realDifferencesStillShow() throws {
        let one = try dump([("0001_t.sql", "-- migrate:up\nCREATE TABLE t (a TEXT DEFAULT 'X');\n")])
        let other = try dump([("0001_t.sql", "-- migrate:up\nCREATE TABLE t (a TEXT DEFAULT 'x');\n")])
        #expect(one != other, "a string literal's case is data, not spelling")
    }
}
