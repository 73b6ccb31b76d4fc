import Foundation
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport

/// An app's database whose rows' identity is their rowid, as the `sqlcipher` shell
/// writes it: every table has deleted rows, so a copy that numbers rows anew gives other
/// rowids (a table with no key at all, one whose key is not an `INTEGER PRIMARY KEY`, one
/// with a column named `oid` as Anki's `graves` has), an external-content full-text
/// index kept by its module's documented triggers, contentless ones (FTS4's cannot even
/// count its rows), and an R*Tree. `identities` reads back every rowid and what the
/// full-text indexes find, which they find only while they point at the right rows.
public enum RowIdentityFixture {
    /// FTS5 where the linked SQLCipher has it (4.x); SQLCipher 3.4.1's SQLite has FTS4.
    public static var fts: String { (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 ? "fts5" : "fts4" }

    /// The app's schema and rows: every table has deleted rows, so a copy that numbers
    /// rows anew gives other rowids.
    public static var appSQL: String {
        // Each module's documented triggers for an external-content index: FTS5 takes a
        // 'delete' command with the old values, FTS4 reads them from the table, so it
        // deletes before the row goes.
        let triggers = fts == "fts5" ? """
            CREATE VIRTUAL TABLE notes_fts USING fts5(title, body, content='notes', content_rowid='rowid');
            CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
              INSERT INTO notes_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
            END;
            CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
              INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
            END;
            CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
              INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
              INSERT INTO notes_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
            END;
            """ : """
            CREATE VIRTUAL TABLE notes_fts USING fts4(content='notes', title, body);
            CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
              INSERT INTO notes_fts(docid, title, body) VALUES (new.rowid, new.title, new.body);
            END;
            CREATE TRIGGER notes_ad BEFORE DELETE ON notes BEGIN
              DELETE FROM notes_fts WHERE docid = old.rowid;
            END;
            CREATE TRIGGER notes_bu BEFORE UPDATE ON notes BEGIN
              DELETE FROM notes_fts WHERE docid = old.rowid;
            END;
            CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
              INSERT INTO notes_fts(docid, title, body) VALUES (new.rowid, new.title, new.body);
            END;
            """
        return """
            CREATE TABLE notes (title TEXT, body TEXT);
            CREATE TABLE tags (name TEXT PRIMARY KEY, color TEXT);
            CREATE TABLE graves (usn INTEGER NOT NULL, oid INTEGER NOT NULL, type INTEGER NOT NULL);
            \(triggers)
            CREATE VIRTUAL TABLE notes_words USING \(fts)(body, content='');
            CREATE VIRTUAL TABLE notes_terms USING fts4(body, content='');
            CREATE VIRTUAL TABLE places USING rtree(id, minX, maxX, minY, maxY);
            INSERT INTO notes VALUES ('alpha', 'first words'), ('beta', 'second words'), ('gamma', 'third words'), ('delta', 'fourth words'), ('epsilon', 'fifth words');
            DELETE FROM notes WHERE title IN ('alpha', 'gamma');
            INSERT INTO notes_words(rowid, body) SELECT rowid, body FROM notes;
            INSERT INTO notes_terms(docid, body) SELECT rowid, body FROM notes;
            INSERT INTO tags VALUES ('red', '#f00'), ('green', '#0f0'), ('blue', '#00f');
            DELETE FROM tags WHERE name = 'red';
            INSERT INTO graves VALUES (1, 10, 0), (2, 20, 0), (3, 30, 1);
            DELETE FROM graves WHERE usn = 1;
            INSERT INTO places VALUES (7, 0, 1, 0, 1), (9, 2, 3, 2, 3);
            """
    }

    /// Each table's rows with their rowids, and what the full-text indexes find.
    public static let identitySQL = """
        SELECT 'notes ' || group_concat(rowid || ':' || title, ',') FROM (SELECT rowid, title FROM notes ORDER BY rowid);
        SELECT 'tags ' || group_concat(rowid || ':' || name, ',') FROM (SELECT rowid, name FROM tags ORDER BY rowid);
        SELECT 'graves ' || group_concat(rowid || ':' || usn, ',') FROM (SELECT rowid, usn FROM graves ORDER BY rowid);
        SELECT 'found ' || group_concat(title, ',') FROM (SELECT notes.title FROM notes_fts JOIN notes ON notes.rowid = notes_fts.rowid WHERE notes_fts MATCH 'fourth OR fifth' ORDER BY notes.rowid);
        SELECT 'words ' || group_concat(title, ',') FROM (SELECT notes.title FROM notes_words JOIN notes ON notes.rowid = notes_words.rowid WHERE notes_words MATCH 'second' ORDER BY notes.rowid);
        SELECT 'terms ' || group_concat(title, ',') FROM (SELECT notes.title FROM notes_terms JOIN notes ON notes.rowid = notes_terms.docid WHERE notes_terms MATCH 'fifth' ORDER BY notes.rowid);
        """

    /// What `identitySQL` reads from the app's database as the shell wrote it.
    public static let original = """
        notes 2:beta,4:delta,5:epsilon
        tags 2:green,3:blue
        graves 2:2,3:3
        found delta,epsilon
        words beta
        terms epsilon

        """

    /// `identitySQL` through the shell, after the shell's own check of the
    /// external-content index against its rows (FTS5's `integrity-check` with rank 1,
    /// FTS4's), which fails on an index that points past its rows.
    public static func identities(_ path: String, key: TestKey?) throws -> ChildProcessResult {
        let check = fts == "fts5" ? "INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1);" : "INSERT INTO notes_fts(notes_fts) VALUES ('integrity-check');"
        return try key.map { try SQLCipherShell.run(path, key: $0, check + "\n" + identitySQL) }
            ?? SQLCipherShell.run(path, keyPragma: nil, check + "\n" + identitySQL)
    }
}
