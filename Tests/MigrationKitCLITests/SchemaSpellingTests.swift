import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// The README's workflow on databases other programs made (`schema-dump` → edit →
/// `diff --to`): the unedited dump is no difference from its own database, and after an
/// edit that rebuilds a table, every table's columns are named as the dump spells them.
/// The fixtures are made by the configuration's `sqlcipher` shell, as an Android app
/// (Room, FTS4 over its table, WAL) or a hand-written schema would make them.
@Suite struct SchemaSpellingTests {
    struct Fixture: CustomTestStringConvertible, Sendable {
        let name: String
        let schema: String
        /// Text of the dump replaced to make a change only a rebuild can make.
        let edit: (of: String, with: String)
        /// The SQLite module the fixture needs beyond the core, if any.
        var module: String?
        var testDescription: String { name }
    }

    static let fixtures: [Fixture] = [
        Fixture(name: "Room with FTS4 and WAL", schema: """
            PRAGMA journal_mode = WAL;
            CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, userId INTEGER NOT NULL, title TEXT, body TEXT);
            CREATE INDEX index_notes_userId ON notes(userId);
            CREATE VIRTUAL TABLE notes_fts USING FTS4(title, body, content=`notes`);
            CREATE TRIGGER room_fts_content_sync_notes_fts_BEFORE_UPDATE BEFORE UPDATE ON notes BEGIN DELETE FROM notes_fts WHERE docid=OLD.rowid; END;
            CREATE TRIGGER room_fts_content_sync_notes_fts_AFTER_INSERT AFTER INSERT ON notes BEGIN INSERT INTO notes_fts(docid, title, body) VALUES (NEW.rowid, NEW.title, NEW.body); END;
            CREATE TABLE room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT);
            INSERT INTO notes (userId, title, body) VALUES (1, 'apple', 'pie'), (2, 'pear', 'tart');
            """, edit: ("body TEXT);", "body TEXT CHECK (length(body) < 100));"), module: "fts4"),
        Fixture(name: "mixed case and keyword names", schema: """
            CREATE TABLE Events (id INTEGER PRIMARY KEY, action TEXT, key TEXT, "Order" INTEGER, createdAt TEXT DEFAULT (CURRENT_TIMESTAMP));
            CREATE INDEX Events_byAction ON Events(action, "Order");
            CREATE VIEW RecentEvents AS SELECT id, action AS lastAction FROM Events ORDER BY createdAt DESC;
            INSERT INTO Events (action, key, "Order") VALUES ('open', 'k1', 1), ('close', 'k2', 2);
            """, edit: ("key TEXT,", "key TEXT NOT NULL DEFAULT '',")),
        Fixture(name: "FTS3", schema: """
            CREATE TABLE Docs (docId INTEGER PRIMARY KEY, Body TEXT);
            CREATE VIRTUAL TABLE docs_search USING fts3(Body, tokenize=porter);
            INSERT INTO Docs (Body) VALUES ('alpha'), ('beta');
            """, edit: ("Body TEXT);", "Body TEXT NOT NULL DEFAULT '');"), module: "fts3"),
        Fixture(name: "FTS5", schema: """
            CREATE TABLE Docs (docId INTEGER PRIMARY KEY, Body TEXT);
            CREATE VIRTUAL TABLE docs_search USING fts5(Body, content='Docs', content_rowid='docId', tokenize = 'porter unicode61');
            INSERT INTO Docs (Body) VALUES ('alpha'), ('beta');
            """, edit: ("Body TEXT);", "Body TEXT NOT NULL DEFAULT '');"), module: "fts5"),
    ]

    /// The fixtures the configuration's SQLCipher can make: SQLCipher 4's SQLite has
    /// every module here; SQLCipher 3.4.1's (Debian's build) has FTS3/4 and not FTS5.
    static let runnable = fixtures.filter { $0.module != "fts5" || (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 }

    @Test(arguments: runnable) func theDumpIsNoDifferenceAndARebuildKeepsEveryName(_ fixture: Fixture) throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, fixture.schema)
        try #require(made.status == 0, "\(made.output)")

        let dump = try workspace.run("schema-dump")
        try #require(dump.status == 0, "\(dump.output)")
        #expect(!dump.stdout.contains("_segdir") && !dump.stdout.contains("_content ") && !dump.stdout.contains("_data "),
                "shadow tables are the virtual table's: \(dump.stdout)")
        try workspace.write("schema.sql", dump.stdout)
        let same = try workspace.run("diff", ["--to", workspace.path("schema.sql")])
        #expect(same.status == 0 && same.stdout.contains("No difference"), "\(same.output)")

        #expect(dump.stdout.contains(fixture.edit.of), "\(dump.stdout)")
        let edited = dump.stdout.replacingOccurrences(of: fixture.edit.of, with: fixture.edit.with)
        try workspace.write("schema.sql", edited)
        let written = try workspace.run("diff", ["--to", workspace.path("schema.sql"), "--write", "reshape"])
        #expect(written.status == 0, "\(written.output)")
        let migrate = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup"])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(try Self.columnNames(of: workspace.database, key: workspace.key) == Self.columnNames(madeBy: edited))
        let after = try workspace.run("diff", ["--to", workspace.path("schema.sql")])
        #expect(after.status == 0 && after.stdout.contains("No difference"), "\(after.output)")
    }

    /// Each table's columns as `PRAGMA table_info` names them, table by table.
    static func columnNames(of database: String, key: TestKey?) throws -> [String] {
        // One PRAGMA per table: SQLCipher 3.4.1's SQLite has no `pragma_table_info`.
        let tables = try shellLines(database, key: key, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name;")
        var names: [String] = []
        for table in tables {
            names += try shellLines(database, key: key, "PRAGMA table_info(\"\(table)\");").map { table + "." + $0.split(separator: "|")[1] }
        }
        return names
    }

    /// The same, of a plaintext database the shell builds from `schema`.
    static func columnNames(madeBy schema: String) throws -> [String] {
        let directory = try TemporaryDirectory()
        let path = directory.path("wanted.db")
        let made = try SQLCipherShell.run(path, keyPragma: nil, schema)
        #expect(made.status == 0, "\(made.output)")
        return try columnNames(of: path, key: nil)
    }

    private static func shellLines(_ database: String, key: TestKey?, _ sql: String) throws -> [String] {
        let output = try key.map { try SQLCipherShell.run(database, key: $0, sql) } ?? SQLCipherShell.run(database, keyPragma: nil, sql)
        #expect(output.status == 0, "\(output.output)")
        return output.stdout.split(separator: "\n").map(String.init)
    }
}
