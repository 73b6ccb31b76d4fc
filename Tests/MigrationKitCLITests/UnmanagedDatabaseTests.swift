import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// A database with tables and no ledger MigrationKit reads is not new: `migrate` refuses
/// it before writing anything (exit 7), as Flyway refuses a schema with tables and no
/// history, naming `adopt`, `baseline` and `--accept-existing-tables`; `status` says the
/// same. An empty database still migrates, and an app that makes its tables before its
/// first migration says so with the flag or the setting (docs/adopting.md).
@Suite struct UnmanagedDatabaseTests {
    /// The app's database: a `notes` table with a row, made by the `sqlcipher` shell;
    /// the folder's first migration makes that table `IF NOT EXISTS` and seeds a row,
    /// which is exactly what must not run over it unasked.
    private func appDatabase() throws -> Workspace {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL); INSERT INTO notes (body) VALUES ('kept');")
        try #require(made.status == 0, "\(made.output)")
        try workspace.migration("0001_init.sql", "-- migrate:up\nCREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\nINSERT INTO notes (body) VALUES ('seed');\n")
        try workspace.migration("0002_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY, noteId INTEGER REFERENCES notes(id));\n")
        return workspace
    }

    @Test func tablesWithoutALedgerAreRefusedBeforeAnythingIsWritten() throws {
        let workspace = try appDatabase()
        let said = ["has tables (notes) and no ledger MigrationKit reads", "`migrationkit adopt` names what it finds",
                    "run `migrationkit baseline --to ID`, which proves the schema first", "pass --accept-existing-tables"]
        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.exitCode == .refused, "\(status.output)")
        for words in said { #expect(status.stdout.contains(words), "\(words): \(status.output)") }
        let json = try decodeJSON(try workspace.run("status", ["--json"]).stdout)
        #expect(json["migrateWouldRefuse"] as? Bool == true && json["pendingCount"] as? Int == 2, "\(json)")

        let before = try TreeSnapshot(workspace.root)
        for extra in [[], ["--dry-run"], ["--atomic"]] {
            let migrate = try workspace.run("migrate", extra)
            #expect(migrate.exitCode == .refused, "\(extra): \(migrate.output)")
            for words in said { #expect(migrate.stderr.contains(words), "\(extra) \(words): \(migrate.stderr)") }
            try expectJSONError(try workspace.run("migrate", extra + ["--json"]), .refused, "migrate \(extra) --json")
        }
        try expectUnchanged(before, "a refused migrate")
    }

    /// The flag, the environment and the project file each let the app's own tables be
    /// migrated over; what the first migration then does to them is the app's choice
    /// (here its seed row is added beside the app's).
    @Test func theAppSaysItMadeItsTablesWithTheFlagOrTheSetting() throws {
        let workspace = try appDatabase()
        let migrate = try workspace.run("migrate", ["--accept-existing-tables", "--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 2 migrations"), "\(migrate.output)")
        let rows = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT body FROM notes ORDER BY id; SELECT count(*) FROM grdb_migrations;")
        #expect(rows.stdout == "kept\nseed\n2\n", "\(rows.output)")

        let fromFile = try appDatabase()
        try fromFile.write("migrationkit.toml", "db-path = \"app.db\"\npassword-file = \"key\"\nmigrations = \"Migrations\"\naccept-existing-tables = true\n")
        let status = try Tool.run(["status", "--exit-code"], directory: fromFile.root)
        #expect(status.exitCode == .pendingMigrations && !status.stdout.contains("no ledger MigrationKit reads"), "\(status.output)")
        #expect(try Tool.run(["migrate", "--no-backup"], directory: fromFile.root).status == 0)

        let fromEnvironment = try appDatabase()
        let environment = Tool.environment(["MIGRATIONKIT_ACCEPT_EXISTING_TABLES": "true"])
        #expect(try fromEnvironment.run("migrate", ["--no-backup"], environment: environment).status == 0)

        let badValue = try appDatabase()
        try badValue.write("migrationkit.toml", "accept-existing-tables = \"soon\"\n")
        let refused = try Tool.run(["migrate"] + badValue.options(), directory: badValue.root)
        #expect(refused.exitCode == .usage && refused.stderr.contains("migrationkit.toml:1: `accept-existing-tables` must be true or false, not text"), "\(refused.output)")
    }

    /// A database with no app table is new, whatever its `user_version` (an app that
    /// sets it on an empty file has nothing to adopt): it is migrated from the start.
    @Test func anEmptyDatabaseIsStillMigrated() throws {
        let workspace = try appDatabase()
        try FileManager.default.removeItem(atPath: workspace.database)
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, "PRAGMA user_version = 5;")
        try #require(made.status == 0, "\(made.output)")
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 2 migrations"), "\(migrate.output)")
    }

    /// A table that looks like another tool's ledger, of a shape no reader takes, is
    /// named by `migrate`, `status` and `adopt`, and `adopt` points to `baseline`.
    @Test func aLedgerOfAnUnknownShapeIsNamedAndBaselineIsTheWay() throws {
        let workspace = try appDatabase()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, "CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT, run_at TEXT); INSERT INTO schema_migrations (name) VALUES ('0001_init');")
        try #require(made.status == 0, "\(made.output)")
        let before = try TreeSnapshot(workspace.root)
        let migrate = try workspace.run("migrate")
        #expect(migrate.exitCode == .refused
                && migrate.stderr.contains("it holds schema_migrations (not of golang-migrate's or dbmate's shape), which looks like a migration ledger MigrationKit cannot read"), "\(migrate.output)")
        let adopt = try workspace.run("adopt")
        #expect(adopt.exitCode == .refused, "\(adopt.output)")
        for words in ["it has no ledger adopt reads", "it holds schema_migrations (not of golang-migrate's or dbmate's shape), which adopt cannot map to the migrations",
                      "use `baseline --to ID`, which proves the schema first"] {
            #expect(adopt.stderr.contains(words), "\(words): \(adopt.stderr)")
        }
        try expectUnchanged(before, "a refused migrate and adopt")

        // As it says: baseline proves the schema (the other table left out) and records.
        let baseline = try workspace.run("baseline", ["--to", "0001_init"])
        #expect(baseline.status == 0, "\(baseline.output)")
        #expect(try workspace.run("migrate", ["--no-backup"]).status == 0)
    }

    /// `baseline --dry-run` proves and refuses as a baseline would and writes nothing;
    /// the proof leaves out every known tool's ledger table (Atlas's here, which records a
    /// version no file of this folder carries, so `adopt` refuses it), so it needs no
    /// `--skip-schema-proof`.
    @Test func baselineDryRunProvesAndWritesNothing() throws {
        let workspace = try appDatabase()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          "CREATE TABLE atlas_schema_revisions (version TEXT PRIMARY KEY, description TEXT, type INTEGER, applied INTEGER, total INTEGER, executed_at DATETIME, execution_time INTEGER, error TEXT, error_stmt TEXT, hash TEXT, partial_hashes JSON, operator_version TEXT); INSERT INTO atlas_schema_revisions (version, description) VALUES ('20240101000000', 'init');")
        try #require(made.status == 0, "\(made.output)")
        let adopt = try workspace.run("adopt")
        #expect(adopt.exitCode == .refused && adopt.stderr.contains("Atlas recorded version 20240101000000, and no migration in the folder carries it"), "\(adopt.output)")
        let before = try TreeSnapshot(workspace.root)
        let wrong = try workspace.run("baseline", ["--to", "0002_tags", "--dry-run"])
        #expect(wrong.exitCode == .refused && wrong.stderr.contains("Its schema is not what the migrations up to 0002_tags make (table tags: missing from the database"), "\(wrong.output)")
        let dry = try workspace.run("baseline", ["--to", "0001_init", "--dry-run", "--json"])
        #expect(dry.status == 0, "\(dry.output)")
        let document = try decodeJSON(dry.stdout)
        #expect(document["baselined"] as? [String] == ["0001_init"] && document["dryRun"] as? Bool == true, "\(document)")
        let words = try workspace.run("baseline", ["--to", "0001_init", "--dry-run"])
        #expect(words.stdout.contains("Would baseline 0001_init (record it as applied, not run)") && words.stdout.contains("dry run: nothing was written"), "\(words.output)")
        try expectUnchanged(before, "baseline --dry-run")
        #expect(try workspace.run("baseline", ["--to", "0001_init"]).stdout.contains("Baselined 0001_init"))
    }

    /// Problems of one kind are one line, naming the first file and counting the others.
    @Test func problemsOfOneKindAreOneLineWithTheFilesCounted() throws {
        let workspace = try Workspace()
        try workspace.migration("V1__users.sql", "CREATE TABLE users (id INTEGER PRIMARY KEY);\n")
        for n in 1...5 { try workspace.migration(String(format: "%04d_extra_%d.sql", n, n), "SELECT 1;\n") }
        let status = try workspace.run("status")
        #expect(status.exitCode == .fileError && status.errorLines.count == 1, "\(status.output)")
        #expect(status.stderr.contains("0001_extra_1.sql (and 4 more like it: 0002_extra_2.sql, 0003_extra_3.sql, 0004_extra_4.sql and 1 more): This file is not named as Flyway's layout names migrations"),
                "\(status.stderr)")
    }
}
