import Foundation
@testable import MigrationKit
import MigrationKitTestSupport
@testable import MigrationKitSQLCipher
import Testing

/// `SchemaMigration` written and proven by `SchemaMigrationProof` on real encrypted
/// databases with rows, then applied the way a user applies it: as the next migration
/// file, by the runner, with every row counted before and after.
@Suite struct SchemaMigrationProofTests {
    /// One change an app makes to its schema.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// The first migration: the schema the database has.
        let current: String
        /// Rows put in before the change.
        let rows: String
        /// The schema the app wants.
        let desired: String
        /// The oldest SQLite that runs `desired` (STRICT, generated columns, FTS5).
        var needs = 3_000_000
        /// Statements the written migration must hold (words of them).
        var writes: [String] = []
        /// Statements its up section must not hold.
        var never: [String] = []
        /// A query, and its answer after the migration.
        var afterwards: (sql: String, answer: String)? = nil
        /// Tables the desired schema renames: old name → new.
        var renamedTables: [String: String] = [:]

        var testDescription: String { name }
    }

    static let hasFTS5 = SQLCipherLibrary.compileOptions.contains("ENABLE_FTS5")
    static let hasRenameColumn = SQLCipherLibrary.sqlite >= SQLiteVersion(3, 25, 0)

    static let cases: [Case] = [
        Case(name: "a foreign key gains ON DELETE CASCADE",
             current: "CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE child (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parent(id)); CREATE INDEX child_parentId ON child(parentId);",
             rows: "INSERT INTO parent VALUES (1, 'a'), (2, 'b'); INSERT INTO child VALUES (10, 1), (11, 1), (12, 2);",
             desired: "CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE child (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parent(id) ON DELETE CASCADE); CREATE INDEX child_parentId ON child(parentId);",
             writes: ["CREATE TABLE \"child_migrationkit_new\"", "INSERT INTO \"child_migrationkit_new\"", "CREATE INDEX child_parentId"],
             never: ["DROP TABLE \"parent\""],
             afterwards: ("PRAGMA foreign_keys = ON; DELETE FROM parent WHERE id = 1; SELECT count(*) FROM child;", "1")),
        Case(name: "a parent table rebuilt keeps its children's rows",
             current: "CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE child (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parent(id) ON DELETE CASCADE);",
             rows: "INSERT INTO parent VALUES (1, NULL), (2, 'b'); INSERT INTO child VALUES (10, 1), (11, 2);",
             desired: "CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT 'unnamed'); CREATE TABLE child (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parent(id) ON DELETE CASCADE);",
             writes: ["COALESCE(\"name\", 'unnamed')"],
             afterwards: ("SELECT group_concat(name) FROM (SELECT name FROM parent ORDER BY id);", "unnamed,b")),
        Case(name: "a column added at the end",
             current: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);",
             rows: "INSERT INTO notes (body) VALUES ('x'), ('y');",
             desired: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, pinned INTEGER NOT NULL DEFAULT 0);",
             writes: ["ALTER TABLE \"notes\" ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0"],
             never: ["notes_migrationkit_new\" (id"],
             afterwards: ("SELECT sum(pinned) FROM notes;", "0")),
        Case(name: "a view over a rebuilt table",
             current: "CREATE TABLE items (id INTEGER PRIMARY KEY, price REAL); CREATE VIEW cheap AS SELECT id FROM items WHERE price < 10;",
             rows: "INSERT INTO items VALUES (1, 5), (2, 50);",
             desired: "CREATE TABLE items (id INTEGER PRIMARY KEY, price REAL CHECK (price >= 0)); CREATE VIEW cheap AS SELECT id FROM items WHERE price < 10;",
             writes: ["DROP VIEW \"cheap\"", "CREATE VIEW cheap"],
             afterwards: ("SELECT count(*) FROM cheap;", "1")),
        Case(name: "a WITHOUT ROWID table",
             current: "CREATE TABLE kv (k TEXT PRIMARY KEY, v BLOB);",
             rows: "INSERT INTO kv VALUES ('a', x'01'), ('b', x'02');",
             desired: "CREATE TABLE kv (k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID;",
             writes: ["WITHOUT ROWID"],
             afterwards: ("SELECT hex(v) FROM kv WHERE k = 'b';", "02")),
        Case(name: "a STRICT table",
             current: "CREATE TABLE counts (id INTEGER PRIMARY KEY, n INTEGER);",
             rows: "INSERT INTO counts VALUES (1, 3), (2, 4);",
             desired: "CREATE TABLE counts (id INTEGER PRIMARY KEY, n INTEGER) STRICT;",
             needs: 3_037_000, writes: ["STRICT"],
             afterwards: ("SELECT sum(n) FROM counts;", "7")),
        Case(name: "a generated column",
             current: "CREATE TABLE lines (id INTEGER PRIMARY KEY, price REAL NOT NULL, qty INTEGER NOT NULL);",
             rows: "INSERT INTO lines VALUES (1, 2.5, 4), (2, 1.0, 3);",
             desired: "CREATE TABLE lines (id INTEGER PRIMARY KEY, price REAL NOT NULL, qty INTEGER NOT NULL, total REAL GENERATED ALWAYS AS (price * qty) VIRTUAL);",
             needs: 3_031_000, writes: ["GENERATED ALWAYS"],
             afterwards: ("SELECT sum(total) FROM lines;", "13.0")),
        Case(name: "full-text search with its triggers",
             current: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);",
             rows: "INSERT INTO notes VALUES (1, 'apple pie'), (2, 'pear tart');",
             desired: hasFTS5 ? """
                CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                CREATE VIRTUAL TABLE notes_fts USING fts5(body, content='notes', content_rowid='id');
                CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN INSERT INTO notes_fts(rowid, body) VALUES (new.id, new.body); END;
                CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN INSERT INTO notes_fts(notes_fts, rowid, body) VALUES ('delete', old.id, old.body); END;
                """ : """
                CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                CREATE VIRTUAL TABLE notes_fts USING fts4(content="notes", body);
                CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN INSERT INTO notes_fts(docid, body) VALUES (new.id, new.body); END;
                CREATE TRIGGER notes_bd BEFORE DELETE ON notes BEGIN DELETE FROM notes_fts WHERE docid = old.id; END;
                """,
             writes: ["INSERT INTO \"notes_fts\"(\"notes_fts\") VALUES ('rebuild')", "CREATE TRIGGER notes_ai"],
             never: ["notes_fts_data", "notes_fts_content"],
             afterwards: ("INSERT INTO notes VALUES (3, 'apple crumble'); SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'apple';", "2")),
        Case(name: "an AUTOINCREMENT table rebuilt never gives a deleted row's id again",
             current: "CREATE TABLE tickets (id INTEGER PRIMARY KEY AUTOINCREMENT, subject TEXT);",
             rows: "INSERT INTO tickets (subject) VALUES ('a'), ('b'), (NULL); DELETE FROM tickets WHERE id = 3;",
             desired: "CREATE TABLE tickets (id INTEGER PRIMARY KEY AUTOINCREMENT, subject TEXT NOT NULL DEFAULT '');",
             writes: ["INSERT INTO sqlite_sequence (name, seq) SELECT 'tickets_migrationkit_new', seq FROM sqlite_sequence WHERE name = 'tickets'"],
             afterwards: ("INSERT INTO tickets (subject) VALUES ('d'); SELECT max(id) FROM tickets;", "4")),
        Case(name: "a table without an INTEGER PRIMARY KEY rebuilt keeps its rowids",
             current: "CREATE TABLE notes (body TEXT, color TEXT);",
             rows: "INSERT INTO notes VALUES ('a', NULL), ('b', NULL), ('c', 'red'); DELETE FROM notes WHERE rowid = 2;",
             desired: "CREATE TABLE notes (body TEXT, color TEXT NOT NULL DEFAULT 'none');",
             writes: ["INSERT INTO \"notes_migrationkit_new\" (rowid, \"body\", \"color\") SELECT rowid, \"body\", COALESCE(\"color\", 'none') FROM \"notes\""],
             afterwards: ("SELECT group_concat(rowid || body) FROM (SELECT rowid, body FROM notes ORDER BY rowid);", "1a,3c")),
        Case(name: "a column renamed, as the desired schema declares",
             current: "CREATE TABLE people (id INTEGER PRIMARY KEY, fullname TEXT NOT NULL); CREATE INDEX people_fullname ON people(fullname);",
             rows: "INSERT INTO people VALUES (1, 'Ada'), (2, 'Grace');",
             desired: "CREATE TABLE people (\n  id INTEGER PRIMARY KEY,\n  name TEXT NOT NULL -- @renamed from=fullname\n);\nCREATE INDEX people_fullname ON people(name);",
             // Without RENAME COLUMN (SQLite 3.15), a rebuild copies the old column into the new.
             writes: hasRenameColumn ? ["ALTER TABLE \"people\" RENAME COLUMN \"fullname\" TO \"name\""]
                 : ["INSERT INTO \"people_migrationkit_new\" (\"id\", \"name\") SELECT \"id\", \"fullname\" FROM \"people\""],
             never: ["DROP INDEX", "ADD COLUMN"] + (hasRenameColumn ? ["people_migrationkit_new"] : []),
             afterwards: ("SELECT group_concat(name) FROM (SELECT name FROM people ORDER BY id);", "Ada,Grace")),
        Case(name: "a table and one of its columns renamed, with its index and a child's foreign key",
             current: "CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX author_name ON author(name); CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id));",
             rows: "INSERT INTO author VALUES (1, 'Lem'); INSERT INTO book VALUES (1, 1), (2, 1);",
             desired: "CREATE TABLE writer ( -- @renamed from=author\n  id INTEGER PRIMARY KEY,\n  fullname TEXT -- @renamed from=name\n);\nCREATE INDEX author_name ON writer(fullname);\nCREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES writer(id));",
             writes: ["ALTER TABLE \"author\" RENAME TO \"writer\"", "CREATE TABLE \"book_migrationkit_new\""],
             never: ["DROP TABLE \"author\"", "DROP INDEX"] + (hasRenameColumn ? ["writer_migrationkit_new"] : []),
             afterwards: ("SELECT group_concat(fullname) FROM book JOIN writer ON writer.id = book.authorId;", "Lem,Lem"),
             renamedTables: ["author": "writer"]),
    ]

    /// Each change: written, proven, then applied with rows as the next migration file;
    /// every row is still there, the schema is the desired one, and the down section
    /// takes it back.
    @Test(arguments: cases) func aWrittenMigrationKeepsEveryRow(_ change: Case) throws {
        let directory = try TemporaryDirectory()
        let folder = directory.path("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try "-- migrate:up\n\(change.current)\n".write(toFile: folder + "/0001_init.sql", atomically: true, encoding: .utf8)
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try Self.runner(folder).migrate(in: writer)
        try writer.write { try $0.execute(sql: change.rows) }
        let tables = try writer.read { try $0.userTableNames() }.filter { !$0.hasPrefix("grdb_") && !$0.hasPrefix("migrationkit_") }
        let countsBefore = try Self.rowCounts(tables, in: writer)
        let fileBefore = try Data(contentsOf: URL(fileURLWithPath: writer.path))

        let proof = SchemaMigrationProof()
        guard SQLCipherLibrary.sqlite >= SQLiteVersion(change.needs / 1_000_000, change.needs / 1_000 % 1_000, change.needs % 1_000) else {
            // An older SQLite cannot make the desired schema: said so, nothing written.
            #expect { try proof.migration(from: .database(writer), to: change.desired) } throws: { error in
                if case .desiredSchemaFails = error as? SchemaMigrationProof.Refusal { return true }
                return false
            }
            return
        }
        let migration = try proof.migration(from: .database(writer), to: change.desired).migration
        #expect(try Data(contentsOf: URL(fileURLWithPath: writer.path)) == fileBefore, "writing the migration changed the database")
        let text = migration.fileText
        for words in change.writes { #expect(text.contains(words), "\(words) missing from:\n\(text)") }
        // What the up section must not do (the down one may need a rebuild where
        // SQLite has no DROP COLUMN).
        let up = migration.up.joined(separator: ";\n")
        for words in change.never { #expect(!up.contains(words), "\(words) in:\n\(text)") }

        try text.write(toFile: folder + "/0002_change.sql", atomically: true, encoding: .utf8)
        try Self.runner(folder).migrate(in: writer)
        let renamedCounts = Dictionary(uniqueKeysWithValues: countsBefore.map { (change.renamedTables[$0.key] ?? $0.key, $0.value) })
        #expect(try Self.rowCounts(tables.map { change.renamedTables[$0] ?? $0 }, in: writer) == renamedCounts)
        // Applied, the same schema file asks for nothing more (a rename comment included).
        #expect(try proof.migration(from: .database(writer), to: change.desired).migration.isEmpty)
        let desired = try SQLCipherWriter(path: directory.path("desired.db"), key: .testRawKey)
        try desired.write { try $0.execute(sql: change.desired) }
        let left = try desired.read { wanted in try writer.read { made in try SchemaDifference.between(expected: wanted, actual: made) } }
        #expect(left.isEmpty, "\(left.map(\.summary))")
        if let afterwards = change.afterwards {
            // Every statement but the last runs; the last is the question, read as text.
            let answer = try writer.writeWithoutTransaction { db -> String? in
                var statements = afterwards.sql.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                let question = statements.removeLast()
                for statement in statements { try db.execute(sql: statement) }
                return try db.fetchString(sql: "SELECT CAST((\(question)) AS TEXT)")
            }
            #expect(answer == afterwards.answer)
        }
    }

    /// Dropping a table or a column, or making a column NOT NULL without a default on a
    /// table with rows, is refused with each change named, unless allowed.
    @Test func changesThatLoseDataAreRefusedUnlessAllowed() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try writer.write {
            try $0.execute(sql: """
                CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, color TEXT);
                CREATE TABLE old_tags (id INTEGER PRIMARY KEY);
                INSERT INTO notes VALUES (1, NULL, 'red');
                """)
        }
        let desired = "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);"
        #expect { try SchemaMigrationProof().migration(from: .database(writer), to: desired) } throws: { error in
            guard case .destructive(let changes) = error as? SchemaMigrationProof.Refusal else { return false }
            return changes == [
                "drops table old_tags",
                "drops column notes.color",
                "makes column notes.body NOT NULL without a default, which fails on its rows that hold NULL",
            ]
        }
        // Allowed, the NOT NULL still fails on the row that holds NULL, in the proof's
        // sample of the rows: never shown.
        #expect { try SchemaMigrationProof(allowsDestructiveChanges: true).migration(from: .database(writer), to: desired) } throws: { error in
            if case .migrationFails = error as? SchemaMigrationProof.Refusal { return true }
            return false
        }
    }

    /// A rename the schema does not declare is a drop and an add: refused as a drop.
    @Test func anUndeclaredRenameIsADrop() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE people (id INTEGER PRIMARY KEY, fullname TEXT); INSERT INTO people VALUES (1, 'Ada');") }
        #expect { try SchemaMigrationProof().migration(from: .database(writer), to: "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT);") } throws: { error in
            guard case .destructive(let changes) = error as? SchemaMigrationProof.Refusal else { return false }
            return changes == ["drops column people.fullname (if it was renamed, mark the new column with -- @renamed from=fullname)"]
        }
    }

    /// The same schema spelled another way needs no migration.
    @Test func theSameSchemaRespelledNeedsNoMigration() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX notes_body ON notes(body);") }
        let proven = try SchemaMigrationProof().migration(from: .database(writer), to: "create table \"notes\" ( id integer primary key , body text ) ; create index [notes_body] on notes ( body ) ;")
        #expect(proven.migration.isEmpty)
    }

    /// A name spelled otherwise is another name to an app (`row["userId"]`): the
    /// migration rebuilds the table with the wanted spelling, and the rows stay.
    @Test func aNameSpelledOtherwiseIsMigrated() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLCipherWriter(path: directory.path("app.db"), key: .testRawKey)
        try writer.write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, userid INTEGER); INSERT INTO notes VALUES (1, 7);") }
        let proven = try SchemaMigrationProof().migration(from: .database(writer), to: "CREATE TABLE notes (id INTEGER PRIMARY KEY, userId INTEGER);")
        #expect(!proven.migration.isEmpty)
        try writer.write { db in for statement in proven.migration.up { try db.execute(sql: statement) } }
        var names: [String] = []
        try writer.read { db in try db.forEachTextRow(sql: "PRAGMA table_info(notes)", arguments: []) { names.append($0[1] ?? "") } }
        #expect(names == ["id", "userId"])
        #expect(try writer.read { try $0.textColumn(sql: "SELECT userId FROM notes") } == ["7"])
    }

    static func runner(_ folder: String) throws -> SQLCipherMigrationRunner {
        try SQLCipherMigrationRunner(steps: SQLMigrationDirectory(path: folder).load().map { SQLCipherMigrationStep(file: $0) })
    }

    static func rowCounts(_ tables: [String], in writer: SQLCipherWriter) throws -> [String: Int] {
        try writer.read { db in
            try Dictionary(uniqueKeysWithValues: tables.map { ($0, try db.fetchInt(sql: "SELECT count(*) FROM \"\($0)\"") ?? -1) })
        }
    }
}
