import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// The safety command tests run through the binary: a refused rollback is one clean
/// line. The others are in MigrationKitCLITests.
@Suite struct SafetyCommandTests {
    /// Its down SQL was written for the edited version, not for what the database ran:
    /// rollback refuses before writing anything (no backup either), as migrate does.
    @Test func anEditedMigrationIsNotRolledBackUntilAccepted() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try workspace.migration("0002_books.up.sql", """
            CREATE TABLE books (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors(id), title TEXT NOT NULL, isbn TEXT);
            CREATE INDEX books_authorId ON books(authorId);
            """)
        let before = try TreeSnapshot(workspace.root)
        let blocked = try Guarded.run(["rollback"] + workspace.options([]), directory: workspace.root)
        expectCleanFailure(blocked, .refused, mentions: ["0002_books.up.sql", "--accept-modified 0002_books"], "rollback of an edited migration")
        try expectUnchanged(before, "rollback of an edited migration")
        let accepted = try workspace.run("rollback", ["--accept-modified", "0002_books", "--no-backup"])
        #expect(accepted.status == 0, "\(accepted.output)")
        #expect(accepted.stdout.contains("Rolled back 0002_books"))
        // An edit to an older migration does not stop rolling back the latest.
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try workspace.migration("0001_authors.sql", "-- migrate:up\nCREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT);\n-- migrate:down\nDROP TABLE authors;\n")
        let latest = try workspace.run("rollback", ["--no-backup"])
        #expect(latest.status == 0, "\(latest.output)")
        #expect(latest.stdout.contains("Rolled back 0002_books"))
    }
}

/// A terminal's progress line. The merge tests are in MigrationKitCLITests.
@Suite struct TerminalAndMergeTests {
    @Test func onATerminalALongStepShowsAProgressLine() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_slow.sql", """
            -- migrate:up
            CREATE TABLE numbers (n INTEGER);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 600000)
                INSERT INTO numbers SELECT x FROM c;
            """)
        // `script` (util-linux) gives the command a real pseudo-terminal.
        let command = ([Binary.migrationkit, "migrate"] + workspace.options(["--no-lint"]))
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let result = try ChildProcess.run(["/usr/bin/script", "-qfec", command, "/dev/null"],
                                          environment: Binary.environment(), directory: workspace.root)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("[1/1] 0001_slow"))
        #expect(result.stdout.contains("\r"))              // redrawn in place
        #expect(result.stdout.contains("Applied 0001_slow"))
    }
}
