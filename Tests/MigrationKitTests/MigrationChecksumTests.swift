@testable import MigrationKit
import Testing

/// What a file's checksum counts (docs/how-a-migration-runs.md, "Edited migrations"): the up SQL's tokens
/// exactly as written, and nothing else.
@Suite struct MigrationChecksumTests {
    private func same(_ left: String, _ right: String) -> Bool {
        MigrationChecksum.canonicalBytes(of: left) == MigrationChecksum.canonicalBytes(of: right)
    }

    @Test func whitespaceCommentsAndEmptyStatementsDoNotCount() {
        let written = "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\nCREATE INDEX notes_body ON notes(body);\n"
        #expect(same(written, "-- notes\nCREATE  TABLE notes(id INTEGER PRIMARY KEY,\r\n body TEXT) ;;\n\n/* index */ CREATE INDEX notes_body ON notes (body)\n-- the end\n"))
        #expect(same(written, written.replacingOccurrences(of: ";\n", with: ";\r\n")))
        #expect(same("SELECT 1", "SELECT 1;"))
    }

    /// The exact bytes, pinned: checksums recorded in users' databases depend on them, so
    /// a change to the tokenizer that moved a token boundary would turn applied
    /// migrations into "modified" and must fail here first.
    @Test func theBytesArePinned() {
        let sql = "-- notes\nCREATE TABLE \"Notes\" (id INTEGER, body TEXT DEFAULT 'a; b', n REAL DEFAULT -1.5e3);\nINSERT INTO notes VALUES (x'00ff', ?1, :name)  ;\n"
        let expected = "CREATE\0TABLE\0\"Notes\"\0(\0id\0INTEGER\0,\0body\0TEXT\0DEFAULT\0'a; b'\0,\0n\0REAL\0DEFAULT\0-\01.5e3\0)\0;\0"
            + "INSERT\0INTO\0notes\0VALUES\0(\0x'00ff'\0,\0?1\0,\0:name\0)\0"
        #expect(MigrationChecksum.canonicalBytes(of: sql) == Array(expected.utf8))
    }

    @Test func everyTokenCountsExactlyAsWritten() {
        let written = "INSERT INTO notes (body) VALUES ('a b');"
        #expect(!same(written, "INSERT INTO notes (body) VALUES ('a  b');"), "a literal's spaces run")
        #expect(!same(written, "insert into notes (body) values ('a b');"), "a keyword's case")
        #expect(!same(written, "INSERT INTO \"notes\" (body) VALUES ('a b');"), "a quoted name")
        #expect(!same("SELECT 1; SELECT 2;", "SELECT 1 SELECT 2;"), "where a statement ends")
        #expect(!same("SELECT a-1", "SELECT a--1"), "a comment is not an operator")
    }
}
