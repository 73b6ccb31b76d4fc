import MigrationKit
import Testing

/// What a file's checksum counts (README, "Edited migrations"): the up SQL's tokens
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

    @Test func everyTokenCountsExactlyAsWritten() {
        let written = "INSERT INTO notes (body) VALUES ('a b');"
        #expect(!same(written, "INSERT INTO notes (body) VALUES ('a  b');"), "a literal's spaces run")
        #expect(!same(written, "insert into notes (body) values ('a b');"), "a keyword's case")
        #expect(!same(written, "INSERT INTO \"notes\" (body) VALUES ('a b');"), "a quoted name")
        #expect(!same("SELECT 1; SELECT 2;", "SELECT 1 SELECT 2;"), "where a statement ends")
        #expect(!same("SELECT a-1", "SELECT a--1"), "a comment is not an operator")
    }
}
