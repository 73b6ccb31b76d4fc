import Foundation
import MigrationKitCLITestSupport
@testable import MigrationKitFiles
import MigrationKitTestSupport
import Testing

/// `status` shows every state `migrate` acts on or refuses, and `--exit-code` tells a
/// deploy script which: 0 up to date, 6 something to apply, 7 migrate would refuse.
@Suite struct StatusCommandTests {
    private func states(_ result: CommandResult) throws -> [String: String] {
        let migrations = try decodeJSON(result.stdout)["migrations"] as? [[String: Any]] ?? []
        var states: [String: String] = [:]
        for migration in migrations {
            if let identifier = migration["identifier"] as? String { states[identifier] = migration["state"] as? String }
        }
        return states
    }

    @Test func pendingAndUpToDateExitSixAndZero() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("status", ["--exit-code"]).exitCode == .pendingMigrations)
        #expect(try workspace.run("migrate").status == 0)
        #expect(try workspace.run("status", ["--exit-code"]).status == 0)
    }

    @Test func anEditedMigrationIsShownAndExitsSeven() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        try workspace.migration("0001_authors.sql", "-- migrate:up\nCREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT);\n-- migrate:down\nDROP TABLE authors;\n")
        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.exitCode == .refused, "\(status.output)")
        #expect(status.stdout.contains("modified 0001_authors") && status.stdout.contains("migrate would refuse"), "\(status.stdout)")
        #expect(try states(try workspace.run("status", ["--json"]))["0001_authors"] == "modified")
        #expect(try workspace.run("migrate").exitCode == .refused)
    }

    /// The checksum is of what runs: doing what lint asks (adding a down section), or
    /// adding a blank line or a comment, edits nothing; changing a name does.
    @Test func addingADownSectionOrACommentIsNotAnEdit() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_notes.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);\n")
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try workspace.migration("0001_notes.sql", """
            -- migrate:up
            -- The notes themselves.
            CREATE TABLE notes (id   INTEGER PRIMARY KEY,
                                body TEXT)

            ;

            -- migrate:down
            DROP TABLE notes;
            """)
        let unchanged = try workspace.run("status", ["--exit-code"])
        #expect(unchanged.status == 0 && unchanged.stdout.contains("applied  0001_notes"), "\(unchanged.output)")
        #expect(try workspace.run("rollback", ["--no-backup"]).status == 0, "the new down section runs")
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try workspace.migration("0001_notes.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);\n-- migrate:down\nDROP TABLE notes;\n")
        #expect(try workspace.run("status", ["--exit-code"]).exitCode == .refused)
    }

    /// A database migrated by an earlier version recorded the checksum of the file's
    /// bytes: it reads as applied, not edited, and migrate leaves it as it is (no write,
    /// no backup: an upgrade of MigrationKit does not rewrite every database).
    @Test func aChecksumAnEarlierVersionRecordedStillMatches() throws {
        let workspace = try Workspace()
        let sql = "CREATE TABLE notes (id INTEGER PRIMARY KEY);\n"
        try workspace.migration("0001_notes.up.sql", sql)
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        let hashed = try ChildProcess.run(["/usr/bin/sha256sum", workspace.migrations + "/0001_notes.up.sql"], stdin: nil, environment: Binary.environment())
        let earlier = String(hashed.stdout.prefix(64))
        let recorded = "SELECT checksum FROM grdb_migrationkit_history WHERE identifier = '0001_notes';"
        let current = try SQLCipherShell.run(workspace.database, key: workspace.key, recorded).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(current.count == 64 && current != earlier, "the checksum is no longer of the bytes")
        #expect(try SQLCipherShell.run(workspace.database, key: workspace.key,
                                       "UPDATE grdb_migrationkit_history SET checksum = '\(earlier)';").status == 0)
        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.status == 0 && status.stdout.contains("applied  0001_notes"), "\(status.output)")
        let before = try TreeSnapshot(workspace.root)
        let migrate = try workspace.run("migrate", ["--json"])
        let adopted = try decodeJSON(migrate.stdout)["adoptedChecksums"] as? [String]
        #expect(migrate.status == 0 && adopted == [], "\(migrate.output)")
        try expectUnchanged(before, "migrate after an upgrade")
    }

    /// A `migrate` stopped after the new database's first page was committed, before it
    /// removed its hidden creation marker: the database is complete. `status` and
    /// `verify` read it and leave the folder as it was, marker included; the next
    /// `migrate` removes the marker.
    @Test func aCompleteDatabaseBesideAStaleCreationMarkerIsReadWithoutWriting() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        let marker = NewDatabaseFile.marker(for: workspace.database)
        #expect(FileManager.default.createFile(atPath: marker, contents: Data()))
        let before = try TreeSnapshot(workspace.root)
        for (command, options) in [("status", ["--exit-code"]), ("verify", [])] {
            let look = try workspace.run(command, options)
            #expect(look.status == 0, "\(command): \(look.output)")
            try expectUnchanged(before, "\(command) of a database beside a stale creation marker")
        }
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    /// Versions before the history table was renamed (so that GRDB's dumps and schema
    /// comparisons pass over it) kept it as `migrationkit_history`: the tool reads it,
    /// without writing; a run with nothing to do leaves it; the next write moves it.
    @Test func anEarlierVersionsHistoryTableIsReadAndMovedByTheNextWrite() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--to", "0001_authors", "--no-backup"]).status == 0)
        let toLegacy = """
            CREATE TABLE migrationkit_history (identifier TEXT NOT NULL PRIMARY KEY, checksum TEXT, applied_at TEXT NOT NULL, duration_ms INTEGER NOT NULL);
            INSERT INTO migrationkit_history SELECT identifier, checksum, applied_at, duration_ms FROM grdb_migrationkit_history;
            DROP TABLE grdb_migrationkit_history;
            """
        #expect(try SQLCipherShell.run(workspace.database, key: workspace.key, toLegacy).status == 0)
        let tables = "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%history' ORDER BY name);"

        // An edit is found against what the earlier version recorded; nothing is written.
        let original = try String(contentsOfFile: workspace.migrations + "/0001_authors.sql", encoding: .utf8)
        try workspace.migration("0001_authors.sql", original.replacingOccurrences(of: "name TEXT", with: "name TEXT, born INTEGER"))
        var before = try TreeSnapshot(workspace.root)
        let status = try workspace.run("status", ["--json"])
        #expect(try states(status)["0001_authors"] == "modified", "\(status.output)")
        try expectUnchanged(before, "status of an earlier version's database")
        try workspace.migration("0001_authors.sql", original)

        // Nothing to do: nothing written.
        before = try TreeSnapshot(workspace.root)
        #expect(try workspace.run("migrate", ["--to", "0001_authors", "--no-backup"]).status == 0)
        #expect(try workspace.run("migrate", ["--to", "0001_authors", "--atomic", "--no-backup"]).status == 0)
        try expectUnchanged(before, "migrate with nothing to do")

        // The next step's transaction moves it over.
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        let after = try SQLCipherShell.run(workspace.database, key: workspace.key, tables + "SELECT count(*) FROM grdb_migrationkit_history WHERE checksum IS NOT NULL;")
        #expect(after.stdout == "grdb_migrationkit_history\n2\n", "\(after)")
        #expect(try workspace.run("status", ["--exit-code"]).status == 0)
    }

    @Test func anOutOfOrderFileIsShownAndExitsSeven() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        try workspace.migration("0001_5_late.sql", "-- migrate:up\nCREATE TABLE late (a);\n")
        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.exitCode == .refused, "\(status.output)")
        #expect(status.stdout.contains("out-of-order 0001_5_late") && status.stdout.contains("0002_books"), "\(status.stdout)")
        let json = try workspace.run("status", ["--json"])
        #expect(try states(json)["0001_5_late"] == "outOfOrder")
        #expect(try decodeJSON(json.stdout)["migrateWouldRefuse"] as? Bool == true)
        #expect(try workspace.run("migrate").exitCode == .refused)
    }

    @Test func aPartlyAppliedMergeShowsWhatIsAppliedAndExitsSeven() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_authors.sql", "-- migrate:up\nCREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n")
        #expect(try workspace.run("migrate").status == 0)
        // A later release squashed 0001 and a 0002 this database never applied.
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0001_authors.sql")
        try workspace.migration("0002_schema.sql", """
            -- migrate:merging 0001_authors 0002_books
            -- migrate:up
            CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT);
            """)
        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.exitCode == .refused, "\(status.output)")
        #expect(status.stdout.contains("partly-merged 0002_schema") && status.stdout.contains("0001_authors"), "\(status.stdout)")
        let document = try decodeJSON(try workspace.run("status", ["--json"]).stdout)
        let entry = (document["migrations"] as? [[String: Any]])?.first
        #expect(entry?["state"] as? String == "partlyMerged")
        #expect(entry?["mergedApplied"] as? [String] == ["0001_authors"] && entry?["mergedMissing"] as? [String] == ["0002_books"])
        #expect(try workspace.run("migrate").exitCode == .refused)
    }
}
