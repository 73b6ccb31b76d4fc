import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// An external-content full-text index that does not hold every row of its table:
/// `verify` names the difference, advises `'rebuild'` only where the app's triggers index
/// every row, and leaves an index the app's triggers fill in part on purpose (Joplin's
/// conflict copies and encrypted notes) out of the comparison, without calling it
/// damaged; the copies carry it as it is.
@Suite struct FullTextIndexAdviceTests {
    /// Joplin's notes index (FTS4, `content="notes"`), filled by triggers that leave out
    /// conflict copies and encrypted notes.
    static let joplin = """
        CREATE TABLE notes (id TEXT PRIMARY KEY, title TEXT, body TEXT, is_conflict INTEGER DEFAULT 0, encryption_applied INTEGER DEFAULT 0);
        CREATE VIRTUAL TABLE notes_fts USING fts4(content="notes", notindexed="id", id, title, body);
        CREATE TRIGGER notes_fts_before_update BEFORE UPDATE ON notes BEGIN DELETE FROM notes_fts WHERE docid = old.rowid; END;
        CREATE TRIGGER notes_fts_before_delete BEFORE DELETE ON notes BEGIN DELETE FROM notes_fts WHERE docid = old.rowid; END;
        CREATE TRIGGER notes_after_update AFTER UPDATE ON notes BEGIN INSERT INTO notes_fts(docid, id, title, body) SELECT rowid, id, title, body FROM notes WHERE is_conflict = 0 AND encryption_applied = 0 AND new.rowid = notes.rowid; END;
        CREATE TRIGGER notes_after_insert AFTER INSERT ON notes BEGIN INSERT INTO notes_fts(docid, id, title, body) SELECT rowid, id, title, body FROM notes WHERE is_conflict = 0 AND encryption_applied = 0 AND new.rowid = notes.rowid; END;
        INSERT INTO notes (id, title, body) VALUES ('a', 'Hello', 'world'), ('b', 'Second', 'note');
        INSERT INTO notes (id, title, body, is_conflict) VALUES ('c', 'Conflict', 'copy', 1);
        INSERT INTO notes (id, title, body, encryption_applied) VALUES ('d', 'Secret', 'xx', 1);
        """

    /// An index whose triggers index every row, missing the one row written while they
    /// were not there.
    static let missingRow = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
        CREATE VIRTUAL TABLE notes_fts USING fts4(content="notes", body);
        INSERT INTO notes (body) VALUES ('lost');
        CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN INSERT INTO notes_fts(docid, body) VALUES (new.id, new.body); END;
        INSERT INTO notes (body) VALUES ('one'), ('two');
        """

    func database(_ sql: String, in workspace: Workspace) throws {
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, sql + "\nSELECT count(*) FROM notes;")
        #expect(made.status == 0, "\(made.output)")
    }

    /// `verify` of the database `sql` makes, ended with `status`.
    func verify(_ sql: String, endingWith status: Int32) throws -> CommandResult {
        let workspace = try Workspace()
        try database(sql, in: workspace)
        let verified = try workspace.run("verify")
        #expect(verified.status == status, "\(verified.output)")
        return verified
    }

    @Test func anIndexTheAppFillsInPartOnPurposeIsNotCalledDamaged() throws {
        let workspace = try Workspace()
        try database(Self.joplin, in: workspace)
        let verified = try workspace.run("verify")
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.stdout.contains("n/a    FTS4 index notes_fts: not compared with notes: the app's triggers index only the rows where is_conflict = 0 AND encryption_applied = 0; it holds 2 of the 4 rows of notes; rows 3 and 4 of notes are not in it"),
                "\(verified.output)")
        for advice in ["rebuild", "restore", "FAILED"] { #expect(!verified.output.contains(advice), "\(advice): \(verified.output)") }

        // Its copies keep it as the app made it.
        let exported = workspace.path("export.db")
        let decrypted = try Tool.run(["decrypt", "--db-path", workspace.database, "--password-file", workspace.keyFile, "--output", exported],
                                     directory: workspace.root)
        #expect(decrypted.status == 0, "\(decrypted.output)")
        let read = try SQLCipherShell.run(exported, keyPragma: nil, "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'copy OR world';")
        #expect(read.stdout == "1\n", "\(read.output)")
    }

    @Test func anIndexMissingARowItsTriggersIndexIsNamedAndRebuilt() throws {
        let verified = try verify(Self.missingRow, endingWith: 3)
        #expect(verified.stdout.contains("FAILED FTS4 index notes_fts: The FTS4 index \"notes_fts\" holds 2 of the 3 rows of notes; row 1 of notes is not in it, though the app's triggers index every row of notes; rebuild it from its rows in a migration: INSERT INTO \"notes_fts\"(\"notes_fts\") VALUES ('rebuild')."),
                "\(verified.output)")
        #expect(!verified.output.contains("restore"), "\(verified.output)")
    }

    @Test func anIndexTheAppFillsFromItsOwnCodeIsNamedWithoutARebuild() throws {
        let verified = try verify(Self.missingRow + "\nDROP TRIGGER notes_ai;", endingWith: 3)
        #expect(verified.stdout.contains("FAILED FTS4 index notes_fts: The FTS4 index \"notes_fts\" holds 2 of the 3 rows of notes; row 1 of notes is not in it; no trigger writes it, so the app fills it from its own code"),
                "\(verified.output)")
        #expect(!verified.output.contains("VALUES ('rebuild')") && !verified.output.contains("restore"), "\(verified.output)")
    }
}
