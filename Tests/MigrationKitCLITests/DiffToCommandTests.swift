import Foundation
@testable import MigrationKit
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// `migrationkit diff --to schema.sql`: the migration to the schema a file makes, run
/// in this process (`Tool`), on an encrypted database with rows that the `sqlcipher`
/// shell counts before and after.
@Suite struct DiffToCommandTests {
    /// The bookshelf's schema, reshaped: a column added at the end (ALTER TABLE), a
    /// foreign key that gains ON DELETE CASCADE (a rebuild), a new index.
    static let reshaped = """
        CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, nickname TEXT);
        CREATE TABLE books (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE, title TEXT NOT NULL);
        CREATE INDEX books_authorId ON books(authorId);
        CREATE INDEX books_title ON books(title);
        """

    func bookshelf() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try shell(workspace, "INSERT INTO authors VALUES (1, 'Le Guin'), (2, 'Lem'); INSERT INTO books VALUES (1, 1, 'Earthsea'), (2, 1, 'Lathe'), (3, 2, 'Solaris');")
        try workspace.write("schema.sql", Self.reshaped)
        return workspace
    }

    @discardableResult
    func shell(_ workspace: Workspace, _ sql: String) throws -> String {
        let result = try SQLCipherShell.run(workspace.database, key: workspace.key, sql)
        #expect(result.status == 0, "\(result.output)")
        return result.stdout
    }

    func counts(_ workspace: Workspace) throws -> String {
        try shell(workspace, "SELECT (SELECT count(*) FROM authors) || ' ' || (SELECT count(*) FROM books);")
    }

    /// Printed, it is a migration file and nothing else; written with --write, `migrate`
    /// applies it with every row kept; then there is no difference, no drift, and
    /// `check`'s round trips pass.
    @Test func theMigrationIsPrintedWrittenAndApplied() throws {
        let workspace = try bookshelf()
        let before = workspace.bytes(workspace.database)
        let printed = try workspace.run("diff", ["--to", workspace.path("schema.sql")])
        #expect(printed.status == 0, "\(printed.output)")
        #expect(printed.stdout.hasPrefix("-- migrate:up\n"), "\(printed.stdout)")
        #expect(printed.stdout.contains("ALTER TABLE \"authors\" ADD COLUMN nickname TEXT;"), "\(printed.stdout)")
        #expect(printed.stdout.contains("INSERT INTO \"books_migrationkit_new\" (\"id\", \"authorId\", \"title\") SELECT \"id\", \"authorId\", \"title\" FROM \"books\";"), "\(printed.stdout)")
        #expect(printed.stdout.contains("\n-- migrate:down\n"), "\(printed.stdout)")
        #expect(printed.stderr.isEmpty, "\(printed.stderr)")
        #expect(workspace.bytes(workspace.database) == before, "diff changed the database")
        #expect(!printed.output.contains(workspace.key.secret))

        let written = try workspace.run("diff", ["--to", workspace.path("schema.sql"), "--write", "reshape"])
        #expect(written.status == 0, "\(written.output)")
        let file = workspace.migrations + "/0003_reshape.sql"
        #expect(written.stdout.contains("Created \(file)"), "\(written.stdout)")
        // The file `new` would make, holding what diff printed.
        #expect(try String(contentsOfFile: file, encoding: .utf8) == printed.stdout + "\n")
        #expect(workspace.bytes(workspace.database) == before)

        #expect(try counts(workspace) == "2 3\n")
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(try counts(workspace) == "2 3\n")
        // The new foreign key acts: deleting an author takes their books.
        #expect(try shell(workspace, "PRAGMA foreign_keys = ON; DELETE FROM authors WHERE id = 1; SELECT count(*) FROM books;") == "1\n")

        let again = try workspace.run("diff", ["--to", workspace.path("schema.sql")])
        #expect(again.status == 0 && again.stdout.contains("No difference: the schema is what"), "\(again.output)")
        #expect(try workspace.run("diff").status == 0)
        let check = try Tool.run(["check", "--migrations", workspace.migrations])
        #expect(check.status == 0, "\(check.output)")
    }

    /// A rebuild's `DROP TABLE` deletes the old table's statistics (its `sqlite_stat1`
    /// rows). A rebuilt table the database had statistics for is analysed again by the
    /// migration, once its indexes are back, going up and coming back down; a rebuilt
    /// table without them, or any table when the current schema is the migrations
    /// folder's, gets no `ANALYZE`, and `migrate` adds none to a rebuild written by hand.
    @Test func aRebuiltTableWithStatisticsIsAnalysedAgain() throws {
        let workspace = try bookshelf()
        // Both tables rebuilt (a CHECK added, a foreign key's action changed), a new index.
        try workspace.write("schema.sql", """
            CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL CHECK (name <> ''));
            CREATE TABLE books (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE, title TEXT NOT NULL);
            CREATE INDEX books_authorId ON books(authorId);
            CREATE INDEX books_title ON books(title);
            """)
        let statistics = "SELECT tbl || ' ' || ifnull(idx, '-') || ' ' || ifnull(stat, '-') FROM sqlite_stat1 ORDER BY tbl, idx;"
        // Statistics for books alone, as the sqlcipher shell's ANALYZE writes them.
        try shell(workspace, "ANALYZE books;")
        #expect(try shell(workspace, statistics) == "books books_authorId 3 2\n")

        var environment = Binary.environment()
        environment["MIGRATIONKIT_PASSWORD"] = nil
        let folderOnly = try Tool.run(["diff", "--to", workspace.path("schema.sql"), "--migrations", workspace.migrations], environment: environment)
        #expect(folderOnly.status == 0 && folderOnly.stdout.contains("books_migrationkit_new"), "\(folderOnly.output)")
        #expect(!folderOnly.stdout.contains("ANALYZE"), "\(folderOnly.stdout)")

        let written = try workspace.run("diff", ["--to", workspace.path("schema.sql"), "--write", "rebuild"])
        #expect(written.status == 0, "\(written.output)")
        let file = try String(contentsOfFile: workspace.migrations + "/0003_rebuild.sql", encoding: .utf8)
        #expect(file.contains("authors_migrationkit_new") && file.contains("books_migrationkit_new"), "\(file)")
        let sections = file.components(separatedBy: "-- migrate:down\n")
        #expect(sections.count == 2, "\(file)")
        // Last in each section, after the table's indexes are made again; authors had
        // no statistics.
        let lastIndex = ["CREATE INDEX books_title ON books(title);", "CREATE INDEX books_authorId ON books(authorId);"]
        for (section, index) in zip(sections, lastIndex) {
            let statements = section.split(separator: "\n").filter { !$0.isEmpty && !$0.hasPrefix("--") }
            #expect(statements.suffix(2) == [Substring(index), "ANALYZE \"books\";"], "\(section)")
            #expect(!section.contains("ANALYZE \"authors\""), "\(section)")
        }

        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(try counts(workspace) == "2 3\n")
        #expect(try shell(workspace, statistics) == "books books_authorId 3 2\nbooks books_title 3 1\n")
        let rollback = try workspace.run("rollback")
        #expect(rollback.status == 0, "\(rollback.output)")
        #expect(try shell(workspace, statistics) == "books books_authorId 3 2\n")
        let check = try Tool.run(["check", "--migrations", workspace.migrations])
        #expect(check.status == 0, "\(check.output)")

        // Written by hand without it, the rebuild runs as written: nothing analyses books.
        try workspace.migration("0003_rebuild.sql", file.replacingOccurrences(of: "ANALYZE \"books\";\n", with: ""))
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        #expect(try shell(workspace, statistics) == "")
    }

    /// Without --db-path the current schema is what the migrations folder makes: no
    /// database, no key.
    @Test func withoutADatabaseTheFolderIsTheCurrentSchema() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.write("schema.sql", Self.reshaped)
        var environment = Binary.environment()
        environment["MIGRATIONKIT_PASSWORD"] = nil
        let diff = try Tool.run(["diff", "--to", workspace.path("schema.sql"), "--migrations", workspace.migrations], environment: environment)
        #expect(diff.status == 0, "\(diff.output)")
        #expect(diff.stdout.contains("CREATE INDEX books_title ON books(title);"), "\(diff.stdout)")
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
    }

    /// The `sqlcipher` shell's `.schema` output is a schema file: SQLite's own tables it
    /// prints (`sqlite_sequence` for AUTOINCREMENT, `sqlite_stat1` after ANALYZE) are
    /// SQLite's to make, not a difference.
    @Test func theShellsSchemaOutputIsASchemaFile() throws {
        let workspace = try Workspace()
        let create = "CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL);\nCREATE INDEX notes_body ON notes(body);\n"
        try workspace.migration("0001_notes.sql", "-- migrate:up\n" + create)
        let source = workspace.path("shell.db")
        #expect(try SQLCipherShell.run(source, keyPragma: nil, create + "INSERT INTO notes (body) VALUES ('a'), ('b'); ANALYZE;").status == 0)
        let schema = try SQLCipherShell.run(source, keyPragma: nil, ".schema")
        #expect(schema.status == 0, "\(schema.output)")
        // SQLite 3.15's shell (SQLCipher 3.4.1's) leaves them out; newer ones print them.
        var text = schema.stdout
        if !text.contains("sqlite_sequence") { text += "CREATE TABLE sqlite_sequence(name,seq);\n" }
        if !text.contains("sqlite_stat1") { text += "CREATE TABLE sqlite_stat1(tbl,idx,stat);\n" }
        try workspace.write("schema.sql", text)
        var environment = Binary.environment()
        environment["MIGRATIONKIT_PASSWORD"] = nil
        let diff = try Tool.run(["diff", "--to", workspace.path("schema.sql"), "--migrations", workspace.migrations], environment: environment)
        #expect(diff.status == 0 && diff.stdout.contains("No difference"), "\(diff.output)")
    }

    /// A view in the wanted schema that still names a column the schema drops would be
    /// applied and broken afterwards (SQLite checks a view only when it is read), and a
    /// TEMP object would be left out: each is named, with its line, and nothing is written.
    @Test func aViewOnADroppedColumnIsNamed() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_notes.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, color TEXT);\n")
        try workspace.write("schema.sql", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\nCREATE VIEW red_notes AS SELECT id FROM notes WHERE color = 'red';\n")
        var environment = Binary.environment()
        environment["MIGRATIONKIT_PASSWORD"] = nil
        let diff = try Tool.run(["diff", "--to", workspace.path("schema.sql"), "--migrations", workspace.migrations, "--allow-drop"], environment: environment)
        #expect(diff.status == 9, "\(diff.output)")
        #expect(diff.stderr.contains("line 2: view red_notes: no such column: color"), "\(diff.stderr)")

        // A TEMP object is kept by no database: named, not left out silently.
        try workspace.write("schema.sql", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, color TEXT);\nCREATE TEMP VIEW red AS SELECT id FROM notes;\n")
        let temporary = try Tool.run(["diff", "--to", workspace.path("schema.sql"), "--migrations", workspace.migrations], environment: environment)
        #expect(temporary.status == 9 && temporary.stderr.contains("line 2: CREATE TEMP makes an object no database keeps"), "\(temporary.output)")
    }

    /// Lossless changes are not refused as losses: an untyped column becoming `ANY` in a
    /// table made `STRICT` (SQLite 3.37+), and a full-text index over another table's
    /// rows made again with a new tokenizer, which its `'rebuild'` fills again.
    @Test func losslessChangesAreNotRefused() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_docs.sql", """
            -- migrate:up
            CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE docs_fts USING fts4(content="docs", body);
            CREATE TABLE extras (id INTEGER PRIMARY KEY, value);
            """)
        #expect(try workspace.run("migrate", ["--no-backup", "-q"]).status == 0)
        try SQLCipherWriter(path: workspace.database, key: workspace.databaseKey).write {
            try $0.execute(sql: """
                INSERT INTO docs (body) VALUES ('running shoes'), ('ran'); INSERT INTO docs_fts(docs_fts) VALUES ('rebuild');
                INSERT INTO extras (value) VALUES (1), ('two'), (x'03');
                """)
        }
        try workspace.write("tokenizer.sql", """
            CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE docs_fts USING fts4(content="docs", body, tokenize=porter);
            CREATE TABLE extras (id INTEGER PRIMARY KEY, value);
            """)
        let retokenized = try workspace.run("diff", ["--to", workspace.path("tokenizer.sql")])
        #expect(retokenized.status == 0 && retokenized.stdout.contains("VALUES ('rebuild')") && !retokenized.stderr.contains("empties"), "\(retokenized.output)")

        try workspace.write("strict.sql", """
            CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE docs_fts USING fts4(content="docs", body);
            CREATE TABLE extras (id INTEGER PRIMARY KEY, value ANY) STRICT;
            """)
        let strict = try workspace.run("diff", ["--to", workspace.path("strict.sql")])
        if SQLiteVersion(SQLCipherLibrary.sqliteVersion).map({ $0 >= SQLiteVersion(3, 37, 0) }) ?? false {
            #expect(strict.status == 0 && strict.stdout.contains("STRICT"), "\(strict.output)")
        } else {
            #expect(strict.status == 9, "STRICT does not run on SQLite \(SQLCipherLibrary.sqliteVersion): \(strict.output)")
        }
    }

    /// Dropping a table is named and refused (exit 7) with nothing written, unless
    /// --allow-drop; then each drop is a warning.
    @Test func aDropIsRefusedUnlessAllowed() throws {
        let workspace = try bookshelf()
        try workspace.write("smaller.sql", "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n")
        let before = workspace.bytes(workspace.database)
        let files = try FileManager.default.contentsOfDirectory(atPath: workspace.migrations).sorted()
        let refused = try workspace.run("diff", ["--to", workspace.path("smaller.sql"), "--write", "smaller"])
        #expect(refused.status == 7, "\(refused.output)")
        // Nothing appeared that a rename would explain: no rename is suggested.
        #expect(refused.stderr.contains("would lose data: it drops table books. Nothing was written; give --allow-drop"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("@renamed"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.migrations).sorted() == files)
        #expect(workspace.bytes(workspace.database) == before)

        let allowed = try workspace.run("diff", ["--to", workspace.path("smaller.sql"), "--allow-drop"])
        #expect(allowed.status == 0, "\(allowed.output)")
        #expect(allowed.stdout.contains("DROP TABLE \"books\";"), "\(allowed.stdout)")
        #expect(allowed.stderr.contains("warning: the migration drops table books (--allow-drop)"), "\(allowed.stderr)")
    }

    /// The README's way: `schema-dump`'s output is the schema as it is (no difference);
    /// edited, a rename is refused as a drop until the file declares it with
    /// `-- @renamed from=OLD`, and then the written migration keeps the column's values.
    @Test func aDumpedSchemaEditedWithADeclaredRename() throws {
        let workspace = try bookshelf()
        let dump = try workspace.run("schema-dump")
        #expect(dump.status == 0, "\(dump.output)")
        try workspace.write("schema.sql", dump.stdout)
        let same = try workspace.run("diff", ["--to", workspace.path("schema.sql")])
        #expect(same.status == 0 && same.stdout.contains("No difference"), "\(same.output)")

        try workspace.write("schema.sql", dump.stdout.replacingOccurrences(of: "title TEXT NOT NULL);", with: "heading TEXT NOT NULL);"))
        let undeclared = try workspace.run("diff", ["--to", workspace.path("schema.sql")])
        #expect(undeclared.status == 7, "\(undeclared.output)")
        #expect(undeclared.stderr.contains("it drops column books.title (if it was renamed, mark the new column with -- @renamed from=title)"), "\(undeclared.stderr)")

        try workspace.write("schema.sql", dump.stdout.replacingOccurrences(of: "title TEXT NOT NULL);", with: "heading TEXT NOT NULL -- @renamed from=title\n);"))
        let declared = try workspace.run("diff", ["--to", workspace.path("schema.sql"), "--write", "rename_title"])
        #expect(declared.status == 0, "\(declared.output)")
        let written = try String(contentsOfFile: workspace.migrations + "/0003_rename_title.sql", encoding: .utf8)
        // SQLCipher 3.4.1's SQLite 3.15 has no RENAME COLUMN: the copy renames it.
        let renamesInPlace = !SQLCipherLibrary.sqliteVersion.hasPrefix("3.15.")
        #expect(written.contains(renamesInPlace ? "RENAME COLUMN \"title\" TO \"heading\"" : "SELECT \"id\", \"authorId\", \"title\" FROM \"books\""), "\(written)")
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        #expect(try shell(workspace, "SELECT group_concat(heading, '|') FROM (SELECT heading FROM books ORDER BY id);") == "Earthsea|Lathe|Solaris\n")
        let after = try workspace.run("diff", ["--to", workspace.path("schema.sql")])
        #expect(after.status == 0 && after.stdout.contains("No difference"), "\(after.output)")
    }

    /// --to may name a database: an encrypted one (opened with the current database's
    /// key) or a plaintext one, each made by the `sqlcipher` shell and only read.
    @Test func theDesiredSchemaMayBeAnotherDatabase() throws {
        let workspace = try bookshelf()
        let encrypted = workspace.path("wanted.db")
        let plaintext = workspace.path("wanted-plain.db")
        #expect(try SQLCipherShell.run(encrypted, key: workspace.key, Self.reshaped).status == 0)
        #expect(try SQLCipherShell.run(plaintext, keyPragma: nil, "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL); CREATE TABLE books (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors(id), title TEXT NOT NULL); CREATE INDEX books_authorId ON books(authorId); CREATE TABLE shelves (id INTEGER PRIMARY KEY);").status == 0)
        let before = [encrypted, plaintext, workspace.database].map { workspace.bytes($0) }

        let fromEncrypted = try workspace.run("diff", ["--to", encrypted])
        #expect(fromEncrypted.status == 0, "\(fromEncrypted.output)")
        #expect(fromEncrypted.stdout.contains("ALTER TABLE \"authors\" ADD COLUMN nickname TEXT;") && fromEncrypted.stdout.contains("CREATE INDEX books_title"), "\(fromEncrypted.stdout)")
        let fromPlaintext = try workspace.run("diff", ["--to", plaintext])
        #expect(fromPlaintext.status == 0, "\(fromPlaintext.output)")
        #expect(fromPlaintext.stdout.hasPrefix("-- migrate:up\nCREATE TABLE shelves (id INTEGER PRIMARY KEY);\n"), "\(fromPlaintext.stdout)")
        #expect([encrypted, plaintext, workspace.database].map { workspace.bytes($0) } == before, "diff changed a database")
        #expect(!FileManager.default.fileExists(atPath: encrypted + "-wal") && !FileManager.default.fileExists(atPath: encrypted + "-journal"))

        // The key is read once, for both databases: standard input cannot be read twice.
        var environment = Binary.environment()
        environment["MIGRATIONKIT_PASSWORD"] = nil
        let piped = try Tool.run(["diff", "--to", encrypted, "--db-path", workspace.database, "--migrations", workspace.migrations,
                                    "--password-file", "-"], stdin: workspace.key.text + "\n", environment: environment)
        #expect(piped.status == 0 && piped.stdout == fromEncrypted.stdout, "\(piped.output)")

        environment["MIGRATIONKIT_PASSWORD"] = "not the key"
        let wrongKey = try Tool.run(["diff", "--to", encrypted, "--migrations", workspace.migrations], environment: environment)
        #expect(wrongKey.exitCode == .wrongKeyOrNotADatabase, "\(wrongKey.output)")
        #expect(wrongKey.stderr.contains(encrypted) && !wrongKey.output.contains(workspace.key.secret), "\(wrongKey.stderr)")
    }

    /// One of the repository's example folders, reshaped through its own schema-dump.
    struct Example: CustomTestStringConvertible, Sendable {
        let folder: String
        let rows: String
        /// The edit to the dumped schema: this text replaced by that.
        let edit: (of: String, with: String)
        /// Row counts before and after, as the `sqlcipher` shell prints them.
        let counts: String
        var testDescription: String { folder }
    }

    static let examples: [Example] = [
        Example(folder: "Migrations",
                rows: "INSERT INTO authors VALUES (1, 'Le Guin'); INSERT INTO genres VALUES (1, 'sf'); INSERT INTO books VALUES (1, 1, 'Earthsea', 1, 1968), (2, 1, 'Lathe', NULL, 1971);",
                edit: ("publishedYear INTEGER);", "publishedYear INTEGER CHECK (publishedYear > 0), isbn TEXT);\nCREATE INDEX books_title ON books (title);"),
                counts: "SELECT (SELECT count(*) FROM authors) || ' ' || (SELECT count(*) FROM books) || ' ' || (SELECT count(*) FROM genres);"),
        Example(folder: "ModernMigrations",
                rows: "INSERT INTO notes (id, title, body) VALUES (1, 'apple', 'pie'), (2, 'pear', 'tart');",
                edit: ("title TEXT NOT NULL,", "title TEXT NOT NULL CHECK (length(title) < 200),"),
                counts: "SELECT (SELECT count(*) FROM notes) || ' ' || (SELECT count(*) FROM notes_search WHERE notes_search MATCH 'apple');"),
    ]
    /// ModernMigrations needs SQLCipher 4's SQLite; on 3.4.1 ModernSQLTests checks that
    /// lint reports it instead.
    static let runnableExamples = examples.filter { $0.folder == "Migrations" || (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 }

    /// The example folders: migrated with rows, dumped, the dump is no difference; edited,
    /// the written migration is applied by `migrate` with every row kept, the dump is
    /// then no difference again, and `check`'s round trips pass over the folder.
    @Test(arguments: runnableExamples) func theExampleFoldersReshapedThroughTheirDump(_ example: Example) throws {
        let workspace = try Workspace()
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/\(example.folder)").path
        for file in try FileManager.default.contentsOfDirectory(atPath: examples) where file.hasSuffix(".sql") {
            try FileManager.default.copyItem(atPath: examples + "/" + file, toPath: workspace.migrations + "/" + file)
        }
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try shell(workspace, example.rows)
        let countsBefore = try shell(workspace, example.counts)
        let dump = try workspace.run("schema-dump")
        try workspace.write("schema.sql", dump.stdout)
        let same = try workspace.run("diff", ["--to", workspace.path("schema.sql")])
        #expect(same.status == 0 && same.stdout.contains("No difference"), "\(same.output)")

        #expect(dump.stdout.contains(example.edit.of), "\(dump.stdout)")
        try workspace.write("schema.sql", dump.stdout.replacingOccurrences(of: example.edit.of, with: example.edit.with))
        let written = try workspace.run("diff", ["--to", workspace.path("schema.sql"), "--write", "reshape"])
        #expect(written.status == 0, "\(written.output)")
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(try shell(workspace, example.counts) == countsBefore)
        #expect(try SchemaSpellingTests.columnNames(of: workspace.database, key: workspace.key)
            == SchemaSpellingTests.columnNames(madeBy: dump.stdout.replacingOccurrences(of: example.edit.of, with: example.edit.with)))
        let after = try workspace.run("diff", ["--to", workspace.path("schema.sql")])
        #expect(after.status == 0 && after.stdout.contains("No difference"), "\(after.output)")
        let check = try Tool.run(["check", "--migrations", workspace.migrations])
        #expect(check.status == 0, "\(check.output)")
    }

    /// A migration the proof cannot carry out on the sample of rows (a CHECK that a row
    /// breaks) is shown nowhere: exit 7, nothing written, the database as it was.
    @Test func aMigrationThatFailsOnTheRowsIsNotShown() throws {
        let workspace = try bookshelf()
        try workspace.write("checked.sql", Self.reshaped.replacingOccurrences(of: "title TEXT NOT NULL)", with: "title TEXT NOT NULL CHECK (length(title) > 5))"))
        let before = workspace.bytes(workspace.database)
        let files = try FileManager.default.contentsOfDirectory(atPath: workspace.migrations).sorted()
        let refused = try workspace.run("diff", ["--to", workspace.path("checked.sql"), "--write", "checked"])
        #expect(refused.status == 7, "\(refused.output)")
        #expect(refused.stdout.isEmpty || !refused.stdout.contains("migrate:up"), "\(refused.stdout)")
        #expect(refused.stderr.contains("fails on a scratch copy") && refused.stderr.contains("CHECK constraint failed"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.migrations).sorted() == files)
        #expect(workspace.bytes(workspace.database) == before)
    }

    /// A schema file that does not run, holds more than CREATE statements, or is not
    /// there, is named (exit 9).
    @Test func aBadSchemaFileIsNamed() throws {
        let workspace = try bookshelf()
        try workspace.write("broken.sql", "CREATE TABLE authors (id INTEGER PRIMARY KEY,);\n")
        let broken = try workspace.run("diff", ["--to", workspace.path("broken.sql")])
        #expect(broken.status == 9, "\(broken.output)")
        #expect(broken.stderr.contains("--to \(workspace.path("broken.sql")) does not run on an empty database"), "\(broken.stderr)")
        #expect(broken.stderr.contains("line 1: "), "\(broken.stderr)")
        // Only CREATE statements make a schema: an ATTACH would write a file.
        try workspace.write("seeded.sql", "CREATE TABLE authors (id INTEGER PRIMARY KEY);\nATTACH 'elsewhere.db' AS other;\n\nINSERT INTO authors VALUES (1);\n")
        let seeded = try workspace.run("diff", ["--to", workspace.path("seeded.sql")])
        #expect(seeded.status == 9, "\(seeded.output)")
        // Each one, with its line.
        #expect(seeded.stderr.contains("--to \(workspace.path("seeded.sql")) holds statements that are not CREATE statements (line 2: ATTACH, line 4: INSERT)"), "\(seeded.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.path("elsewhere.db")))
        // A missing `;` is found where SQLite stops: the next line's CREATE.
        try workspace.write("unended.sql", "CREATE TABLE authors (id INTEGER PRIMARY KEY)\n\nCREATE TABLE books (id INTEGER PRIMARY KEY);\n")
        let unended = try workspace.run("diff", ["--to", workspace.path("unended.sql")])
        #expect(unended.status == 9 && unended.stderr.contains("line 3: near \"CREATE\""), "\(unended.output)")
        let missing = try workspace.run("diff", ["--to", workspace.path("nowhere.sql")])
        #expect(missing.status == 9, "\(missing.output)")
        #expect(missing.stderr.contains("cannot be read (no such file)"), "\(missing.stderr)")
        let writeAlone = try workspace.run("diff", ["--write", "x"])
        #expect(writeAlone.status == 64, "\(writeAlone.output)")
    }

    /// --json: the statements of both sections, the destructive changes, the files.
    @Test func theJSONDocumentHoldsBothSections() throws {
        let workspace = try bookshelf()
        let json = try workspace.run("diff", ["--to", workspace.path("schema.sql"), "--json"])
        #expect(json.status == 0, "\(json.output)")
        let document = try decodeJSON(json.stdout)
        #expect(Set(document.keys) == ["database", "to", "up", "down", "destructive", "files"])
        let up = try #require(document["up"] as? [String])
        #expect(up.first == "ALTER TABLE \"authors\" ADD COLUMN nickname TEXT", "\(up)")
        #expect((document["down"] as? [String])?.isEmpty == false)
        #expect(document["destructive"] as? [String] == [])
        #expect(document["files"] is NSNull)
    }
}
