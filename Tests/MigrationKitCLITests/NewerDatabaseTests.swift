import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// An older release meets a database a newer release migrated: it uses the database when
/// every newer migration is declared compatible with it, steps back from the down SQL the
/// newer release stored in the database, or refuses and says why, step by step; never
/// wipes. Two releases are two folders of the same project: `Migrations` (the older) and
/// `Newer`.
@Suite struct NewerDatabaseTests {
    /// Release 1 has notes; release 2 adds a compatible table of tags and a color column
    /// that release 1's inserts would break (NOT NULL), whose down rebuilds the table as
    /// SQLite 3.15 can.
    private func twoReleases(colorDown: String? = Self.colorDown) throws -> Workspace {
        let workspace = try Workspace()
        let notes = """
            -- migrate:up
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
            -- migrate:down
            DROP TABLE notes;
            """
        try workspace.migration("0001_notes.sql", notes)
        try FileManager.default.createDirectory(atPath: workspace.path("Newer"), withIntermediateDirectories: true)
        try workspace.write("Newer/0001_notes.sql", notes)
        try workspace.write("Newer/0002_tags.sql", """
            -- migrate:compatible
            -- migrate:up
            CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            -- migrate:down
            DROP TABLE tags;
            """)
        try workspace.write("Newer/0003_color.sql", """
            -- migrate:up
            ALTER TABLE notes ADD COLUMN color TEXT NOT NULL DEFAULT 'white';
            """ + (colorDown.map { "\n-- migrate:down\n" + $0 } ?? ""))
        return workspace
    }

    private static let colorDown = """
        CREATE TABLE notes_without_color (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
        INSERT INTO notes_without_color (id, body) SELECT id, body FROM notes;
        DROP TABLE notes;
        ALTER TABLE notes_without_color RENAME TO notes;
        """

    /// Runs `command` on the workspace's database with the newer release's folder.
    @discardableResult
    private func runNewer(_ workspace: Workspace, _ command: String, _ extra: [String] = []) throws -> CommandResult {
        try Tool.run([command, "--db-path", workspace.database, "--password-file", workspace.keyFile, "--migrations", workspace.path("Newer")] + extra,
                     directory: workspace.root)
    }

    /// The newer release migrates and the app writes rows, two with a color.
    private func migratedByTheNewerRelease(_ workspace: Workspace) throws {
        let migrated = try runNewer(workspace, "migrate", ["--no-backup"])
        #expect(migrated.status == 0, "\(migrated.output)")
        let written = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                             "INSERT INTO notes (body, color) VALUES ('a', 'red'), ('b', 'blue'); INSERT INTO tags (name) VALUES ('x');")
        #expect(written.status == 0, "\(written)")
    }

    private func shell(_ workspace: Workspace, _ sql: String) throws -> String {
        let result = try SQLCipherShell.run(workspace.database, key: workspace.key, sql)
        #expect(result.status == 0, "\(result)")
        return result.stdout
    }

    private func backups(_ workspace: Workspace) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workspace.root).filter { $0.hasPrefix("app.db.backup-") }
    }

    @Test func theOlderReleaseStepsBackFromTheDownsTheNewerOneStored() throws {
        let workspace = try twoReleases()
        try migratedByTheNewerRelease(workspace)
        // What the database keeps for older releases, and in which format.
        #expect(try shell(workspace, "SELECT key || '=' || value FROM grdb_migrationkit_meta ORDER BY key;") == "history_format=2\nhistory_oldest_writer=1\n")
        #expect(try shell(workspace, "SELECT identifier || ' ' || compatible || ' ' || (length(down_checksum) = 64) FROM grdb_migrationkit_downgrade ORDER BY identifier;")
                == "0001_notes 0 1\n0002_tags 1 1\n0003_color 0 1\n")

        // migrate refuses, says what can be done, and writes nothing.
        let before = try TreeSnapshot(workspace.root)
        let refused = try workspace.run("migrate")
        #expect(refused.status == 7, "\(refused.output)")
        #expect(refused.stderr.contains("0003_color: applied by a newer version and not compatible with this one; its down SQL is stored in the database: `migrationkit rollback --newer` steps back"), "\(refused.output)")
        #expect(!refused.stderr.contains("0002_tags:"), "\(refused.output)")
        let status = try workspace.run("status")
        #expect(status.stdout.contains("unknown  0002_tags (applied by a newer version; compatible with this one, used as it is)"), "\(status.output)")
        #expect(status.stdout.contains("unknown  0003_color (applied by a newer version; not compatible with this one; its down SQL is stored: `rollback --newer` undoes it)"), "\(status.output)")
        #expect(status.stdout.contains("`rollback --newer` can step back from the newer version's migrations."), "\(status.output)")

        // Off a terminal, no question can be asked: nothing is written, no backup.
        let unconfirmed = try workspace.run("rollback", ["--newer"])
        #expect(unconfirmed.status == 7, "\(unconfirmed.output)")
        #expect(unconfirmed.stderr.contains("Stepping back undoes 0003_color (newest first)"), "\(unconfirmed.output)")
        #expect(unconfirmed.stderr.contains("Stepping back drops column notes.color (2 values)."), "\(unconfirmed.output)")
        #expect(unconfirmed.stderr.contains("Refusing to step back without confirmation: pass --yes"), "\(unconfirmed.output)")
        try expectUnchanged(before, "a refused migrate, status and an unconfirmed step back")

        // Stepping back drops what the newer release wrote: a backup is written whatever
        // --no-backup says.
        let stepped = try workspace.run("rollback", ["--newer", "--yes", "--no-backup"])
        #expect(stepped.status == 0, "\(stepped.output)")
        #expect(stepped.stdout.contains("Rolled back 0003_color"), "\(stepped.output)")
        #expect(stepped.stdout.contains("Stepped back 1 migration in "), "\(stepped.output)")
        // Release 1's schema and ledger; the compatible table and its rows stay; the
        // rows keep their identity.
        #expect(try shell(workspace, "SELECT group_concat(identifier) FROM grdb_migrations;") == "0001_notes,0002_tags\n")
        // Read as SQLite 3.15 can (no table-valued pragmas): every column but color.
        #expect(try shell(workspace, "SELECT id, body FROM notes LIMIT 0; SELECT instr(sql, 'color') FROM sqlite_master WHERE name = 'notes';") == "0\n")
        #expect(try shell(workspace, "SELECT group_concat(id || body) FROM notes; SELECT count(*) FROM tags;") == "1a,2b\n1\n")
        #expect(try shell(workspace, "SELECT rolled_back_at IS NOT NULL FROM grdb_migrationkit_downgrade WHERE identifier = '0003_color';") == "1\n")
        #expect(try workspace.run("migrate").status == 0, "release 1 migrates again")
        // The backup holds the database as the newer release left it, with the same key.
        let saved = try #require(try backups(workspace).first)
        let kept = try SQLCipherShell.run(workspace.path(saved), key: workspace.key, "SELECT group_concat(color) FROM notes;")
        #expect(kept.stdout == "red,blue\n", "\(kept)")

        // A rerun finds nothing in the way and writes nothing.
        let settled = try TreeSnapshot(workspace.root)
        let again = try workspace.run("rollback", ["--newer", "--yes"])
        #expect(again.status == 0, "\(again.output)")
        #expect(again.stdout.contains("0002_tags was applied by a newer version and is marked compatible with this one: it stays as it is"), "\(again.output)")
        try expectUnchanged(settled, "a step back with nothing in the way")

        // The newer release applies its step again, and records it afresh.
        #expect(try runNewer(workspace, "migrate", ["--no-backup"]).status == 0)
        #expect(try shell(workspace, "SELECT rolled_back_at IS NULL FROM grdb_migrationkit_downgrade WHERE identifier = '0003_color';") == "1\n")
    }

    /// Release 2's compatible table alone leaves release 1 working: it says so once and
    /// changes nothing.
    @Test func compatibleNewerStepsAreUsedAsTheyAre() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_notes.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n")
        try FileManager.default.createDirectory(atPath: workspace.path("Newer"), withIntermediateDirectories: true)
        try workspace.write("Newer/0001_notes.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n")
        try workspace.write("Newer/0002_tags.sql", "-- migrate:compatible\n-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        #expect(try runNewer(workspace, "migrate", ["--no-backup"]).status == 0)

        let before = try TreeSnapshot(workspace.root)
        let migrated = try workspace.run("migrate")
        #expect(migrated.status == 0, "\(migrated.output)")
        #expect(migrated.stdout.contains("0002_tags was applied by a newer version and is marked compatible with this one: it stays as it is (`status` lists it)."), "\(migrated.output)")
        let status = try workspace.run("status", ["--exit-code", "--json"])
        #expect(status.status == 0, "\(status.output)")
        let newer = try #require(try decodeJSON(status.stdout)["newer"] as? [String: Any])
        #expect(newer["verdict"] as? String == "compatible")
        try expectUnchanged(before, "a migrate with nothing to do beside a compatible newer step")
    }

    @Test func aNewerStepWithNoWayBackIsRefusedAndTheDatabaseStillReads() throws {
        let workspace = try twoReleases(colorDown: nil)
        try migratedByTheNewerRelease(workspace)
        let before = try TreeSnapshot(workspace.root)
        for command in ["migrate", "rollback"] {
            let refused = try workspace.run(command, command == "rollback" ? ["--newer", "--yes"] : [])
            #expect(refused.status == 7, "\(command): \(refused.output)")
            #expect(refused.stderr.contains("0003_color: applied by a newer version and not compatible with this one, and no down SQL is stored for it: only the newer version can change this database"), "\(refused.output)")
        }
        let status = try workspace.run("status", ["--exit-code", "--json"])
        #expect(status.status == 7, "\(status.output)")
        let newer = try #require(try decodeJSON(status.stdout)["newer"] as? [String: Any])
        #expect(newer["verdict"] as? String == "refused")
        #expect((newer["steps"] as? [[String: Any]])?.last?["obstacle"] as? String == "noStoredDown")
        let dump = try workspace.run("schema-dump")
        #expect(dump.status == 0 && dump.stdout.contains("CREATE TABLE notes") && !dump.stdout.contains("grdb_migrationkit"), "\(dump.output)")
        #expect(try workspace.run("verify").status == 0)
        try expectUnchanged(before, "refusals and reads of a database only the newer release may change")
        // A migration with neither a down nor a compatibility writes no row.
        #expect(try shell(workspace, "SELECT group_concat(identifier) FROM grdb_migrationkit_downgrade;") == "0001_notes,0002_tags\n")
        #expect(try backups(workspace).isEmpty)
    }

    /// The stored down is checked against its checksum before it runs: an edit (by hand,
    /// or a cut-short write) is refused, never run.
    @Test func anEditedStoredDownIsRefusedByItsChecksum() throws {
        let workspace = try twoReleases()
        try migratedByTheNewerRelease(workspace)
        _ = try shell(workspace, "UPDATE grdb_migrationkit_downgrade SET down_sql = 'DROP TABLE notes;' WHERE identifier = '0003_color';")
        let before = try TreeSnapshot(workspace.root)
        let refused = try workspace.run("rollback", ["--newer", "--yes"])
        #expect(refused.status == 7, "\(refused.output)")
        #expect(refused.stderr.contains("0003_color: applied by a newer version and not compatible with this one, and its stored down SQL does not match its checksum (edited or cut short)"), "\(refused.output)")
        try expectUnchanged(before, "a refused step back")
        #expect(try shell(workspace, "SELECT count(*) FROM notes;") == "2\n")
    }

    /// A step back is one transaction: a down that fails leaves the database exactly as
    /// the newer release left it, the backup beside it.
    @Test func aFailingStoredDownLeavesTheNewerDatabase() throws {
        let workspace = try twoReleases(colorDown: "DROP TABLE notes_archive;")
        try migratedByTheNewerRelease(workspace)
        let schema = try shell(workspace, "SELECT group_concat(sql, ';') FROM sqlite_master; SELECT group_concat(identifier) FROM grdb_migrations;")
        let failed = try workspace.run("rollback", ["--newer", "--yes"])
        #expect(failed.status == 2, "\(failed.output)")
        #expect(failed.stderr.contains("0003_color"), "\(failed.output)")
        #expect(try shell(workspace, "SELECT group_concat(sql, ';') FROM sqlite_master; SELECT group_concat(identifier) FROM grdb_migrations;") == schema)
    }

    /// `-- migrate:compatible from ID` allows only builds that know ID.
    @Test func compatibleFromAllowsOnlyBuildsThatKnowTheStep() throws {
        let workspace = try twoReleases()
        try workspace.write("Newer/0003_color.sql", """
            -- migrate:compatible from 0002_tags
            -- migrate:up
            ALTER TABLE notes ADD COLUMN color TEXT;
            """)
        try migratedByTheNewerRelease(workspace)
        let older = try workspace.run("migrate")
        #expect(older.status == 7, "\(older.output)")
        #expect(older.stderr.contains("0003_color: applied by a newer version and not compatible with this one, and no down SQL is stored for it"), "\(older.output)")
        // The release between them knows 0002_tags, so it uses the database as it is.
        try workspace.write("Migrations/0002_tags.sql", "-- migrate:compatible\n-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n-- migrate:down\nDROP TABLE tags;\n")
        let between = try workspace.run("migrate")
        #expect(between.status == 0, "\(between.output)")
        #expect(between.stdout.contains("0003_color was applied by a newer version and is marked compatible with this one"), "\(between.output)")
    }

    /// `check` runs each down as the release before the migration would: from the copy
    /// stored in the database, judged by that release's migrations; a migration declared
    /// compatible with it is rolled back with its own down. A stored down that does not
    /// undo its migration fails there, before any user meets it.
    @Test func checkRehearsesTheStepBackOfEachMigration() throws {
        let workspace = try twoReleases()
        let proved = try Tool.run(["check", "--migrations", "Newer"], directory: workspace.root)
        #expect(proved.status == 0, "\(proved.output)")
        #expect(proved.stdout.contains("ok     round trip 0003_color: up, down and up again give the same schemas (the down run as the release before it runs it, from the copy stored in the database)"), "\(proved.output)")
        #expect(proved.stdout.contains("ok     round trip 0002_tags: up, down and up again give the same schemas\n"), "\(proved.output)")

        let broken = try twoReleases(colorDown: "SELECT 1;")
        let failed = try Tool.run(["check", "--migrations", "Newer"], directory: broken.root)
        #expect(failed.status != 0, "\(failed.output)")
        #expect(failed.stdout.contains("round trip 0003_color: the down stored in the database does not undo the step"), "\(failed.output)")
    }

    /// Over a fleet each database steps back on its own, with its own backup; one that
    /// cannot is reported and the others go on, and a rerun changes nothing twice.
    @Test func aFleetStepsBackEachDatabaseOnItsOwn() throws {
        let workspace = try twoReleases()
        try FileManager.default.createDirectory(atPath: workspace.path("tenants"), withIntermediateDirectories: true)
        for name in ["a", "b", "c"] {
            let migrated = try Tool.run(["migrate", "--db-path", "tenants/\(name).db", "--password-file", "key", "--migrations", "Newer", "--no-backup"],
                                        directory: workspace.root)
            #expect(migrated.status == 0, "\(migrated.output)")
        }
        let edited = try SQLCipherShell.run(workspace.path("tenants/b.db"), key: workspace.key, "UPDATE grdb_migrationkit_downgrade SET down_sql = 'SELECT 1;';")
        #expect(edited.status == 0, "\(edited)")
        let fleet = ["rollback", "--newer", "--db-glob", "tenants/*.db", "--password-file", "key", "--migrations", "Migrations"]
        let unconfirmed = try Tool.run(fleet, directory: workspace.root)
        #expect(unconfirmed.exitCode == .usage && unconfirmed.stderr.contains("rollback --newer takes --yes"), "\(unconfirmed.output)")
        for _ in 0..<2 {
            let stepped = try Tool.run(fleet + ["--yes", "--json"], directory: workspace.root)
            #expect(stepped.exitCode == .refused, "\(stepped.output)")
            let entries = try #require(try decodeJSON(stepped.stdout)["databases"] as? [[String: Any]])
            let results = entries.map { (($0["database"] as? String ?? "") as NSString).lastPathComponent + " " + ($0["result"] as? String ?? "") }
            #expect(results.sorted() == ["a.db finished", "b.db failed", "c.db finished"], "\(stepped.stdout)")
        }
        for name in ["a", "c"] {
            let ledger = try SQLCipherShell.run(workspace.path("tenants/\(name).db"), key: workspace.key, "SELECT group_concat(identifier) FROM grdb_migrations;")
            #expect(ledger.stdout == "0001_notes,0002_tags\n", "\(name): \(ledger)")
        }
        let untouched = try SQLCipherShell.run(workspace.path("tenants/b.db"), key: workspace.key, "SELECT group_concat(identifier) FROM grdb_migrations;")
        #expect(untouched.stdout == "0001_notes,0002_tags,0003_color\n", "\(untouched)")
        let backups = try FileManager.default.contentsOfDirectory(atPath: workspace.path("tenants")).filter { $0.contains(".backup-") }
        #expect(backups.count == 2 && backups.allSatisfy { $0.hasPrefix("a.db") || $0.hasPrefix("c.db") }, "\(backups)")
    }

    /// Databases an earlier MigrationKit wrote: format 1 (the history alone) and format 0
    /// (the history under its earlier name). Each is read as it is; a run with nothing to
    /// do writes nothing, so it stays in its format; the first run that applies a step
    /// records that step's way back, and the format, with it. Steps applied before keep
    /// no stored down: an older release cannot step back from them.
    @Test(arguments: [1, 0])
    func aDatabaseInAnEarlierFormatIsReadAndMovesOnOnlyWhenWritten(format: Int) throws {
        let workspace = try twoReleases()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        var earlier = "DROP TABLE grdb_migrationkit_downgrade; DROP TABLE grdb_migrationkit_meta;"
        if format == 0 {
            earlier += """
                CREATE TABLE migrationkit_history (identifier TEXT NOT NULL PRIMARY KEY, checksum TEXT, applied_at TEXT NOT NULL, duration_ms INTEGER NOT NULL);
                INSERT INTO migrationkit_history SELECT identifier, checksum, applied_at, duration_ms FROM grdb_migrationkit_history;
                DROP TABLE grdb_migrationkit_history;
                """
        }
        _ = try shell(workspace, earlier)
        let before = try TreeSnapshot(workspace.root)
        let status = try workspace.run("status")
        #expect(status.status == 0 && status.stdout.contains("applied  0001_notes") && status.stdout.contains("1 applied, 0 pending."), "\(status.output)")
        #expect(try workspace.run("migrate").status == 0)
        try expectUnchanged(before, "status and a migrate with nothing to do on a format-\(format) database")

        try workspace.write("Migrations/0002_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n-- migrate:down\nDROP TABLE tags;\n")
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        #expect(try shell(workspace, "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master WHERE name LIKE '%migrationkit%' ORDER BY name);")
                == "grdb_migrationkit_downgrade,grdb_migrationkit_history,grdb_migrationkit_meta\n")
        #expect(try shell(workspace, "SELECT group_concat(identifier) FROM grdb_migrationkit_downgrade; SELECT value FROM grdb_migrationkit_meta WHERE key = 'history_format';")
                == "0002_tags\n2\n")
    }

    /// A newer MigrationKit that records a format this version may not write (its oldest
    /// writer is newer than format 2) is refused by name and only read; one whose oldest
    /// writer this version is goes on as before.
    @Test func tablesANewerMigrationKitWroteInAFormatThisOneMayNotWriteAreOnlyRead() throws {
        let workspace = try twoReleases()
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
        try workspace.write("Migrations/0002_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE tags;\n")
        _ = try shell(workspace, "UPDATE grdb_migrationkit_meta SET value = '3' WHERE key IN ('history_format', 'history_oldest_writer');")
        let before = try TreeSnapshot(workspace.root)
        for command in [["migrate"], ["rollback"]] {
            let refused = try workspace.run(command[0], Array(command.dropFirst()))
            #expect(refused.status == 7, "\(command): \(refused.output)")
            #expect(refused.stderr.contains("MigrationKit's own tables in the database are in format 3, written by a newer MigrationKit, and only a MigrationKit that writes format 3 or later may change them (this one writes format 2); use the newer version."), "\(refused.output)")
        }
        #expect(try workspace.run("status").status == 0)
        try expectUnchanged(before, "refusals of tables in a newer format")

        _ = try shell(workspace, "UPDATE grdb_migrationkit_meta SET value = '2' WHERE key = 'history_oldest_writer';")
        let migrated = try workspace.run("migrate", ["--no-backup"])
        #expect(migrated.status == 0 && migrated.stdout.contains("Applied 0002_tags"), "\(migrated.output)")
    }
}
