import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// Nothing unknown is read as nothing: a folder of migrations no layout reads is refused
/// naming what it holds; a tool's code migrations are named in one sentence with the way
/// through; a ledger that records code migrations no file carries is not adopted unless
/// told; `status` and `migrate` say what `adopt` would refuse (docs/adopting.md).
@Suite struct UnreadMigrationsTests {
    /// Knex's JavaScript migrations beside a database with tables, yoyo's Python
    /// migrations: `status`, `migrate` and `adopt` refuse the folder (exit 9) naming what it
    /// holds and what to do, where they used to find nothing to do.
    @Test func aFolderOfMigrationsNoLayoutReadsIsRefusedNamingThem() throws {
        let workspace = try Workspace()
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, "CREATE TABLE notes (id INTEGER PRIMARY KEY);")
        try #require(made.status == 0, "\(made.output)")
        for n in 1...3 { try workspace.migration("2024010100000\(n)_c\(n).js", "exports.up = knex => knex.schema.alterTable('notes', t => t.text('c\(n)'));\n") }
        try workspace.migration("README.md", "Migrations for the app.\n")
        let before = try TreeSnapshot(workspace.root)
        for command in ["status", "migrate", "adopt"] {
            let result = try workspace.run(command)
            #expect(result.exitCode == .fileError && result.errorLines.count == 1, "\(command): \(result.output)")
            for words in ["This folder holds 3 JavaScript or TypeScript migrations (20240101000001_c1.js, 20240101000002_c2.js, 20240101000003_c3.js), and no migration in a layout MigrationKit reads, so nothing here would run",
                          "write each as SQL in a layout MigrationKit reads"] {
                #expect(result.stderr.contains(words), "\(command) \(words): \(result.stderr)")
            }
            #expect(!result.stderr.contains("README"), "\(result.stderr)")
        }
        try expectUnchanged(before, "refused commands")

        let yoyo = try Workspace()
        try yoyo.migration("0001_init.py", "from yoyo import step\nsteps = [step(\"CREATE TABLE t (x)\")]\n")
        let python = try yoyo.run("status")
        #expect(python.exitCode == .fileError && python.stderr.contains("1 Python migrations (yoyo's, Alembic's) (0001_init.py)"), "\(python.output)")
        // Beside yoyo's SQL files, its Python migrations are yoyo's code migrations.
        try yoyo.migration("20240101_01_a-notes.sql", "-- notes\n-- depends:\nCREATE TABLE notes (x);\n")
        let code = try yoyo.run("status")
        #expect(code.exitCode == .fileError && code.errorLines.count == 1
                && code.stderr.contains("0001_init.py: yoyo runs this Python migration, and MigrationKit runs SQL migrations only"), "\(code.output)")

        // A folder with nothing that looks like a migration has none, as before.
        let notes = try Workspace()
        try notes.migration("README.md", "Nothing yet.\n")
        #expect(try notes.run("status").status == 0)
    }

    /// Drizzle's v1 layout (a folder per migration holding `migration.sql` and
    /// `snapshot.json`) is refused naming it (exit 9), never read as Prisma's folders, with
    /// every file as it was.
    @Test func drizzlesV1LayoutIsRefusedByName() throws {
        let workspace = try Workspace()
        for (n, name) in ["20250101000000_init", "20250102000000_tags"].enumerated() {
            try FileManager.default.createDirectory(atPath: workspace.migrations + "/" + name, withIntermediateDirectories: true)
            try workspace.migration(name + "/migration.sql", OtherToolFixture.upSQL(n + 1) + "\n")
            try workspace.migration(name + "/snapshot.json", "{\n  \"version\": \"7\",\n  \"dialect\": \"sqlite\",\n  \"tables\": {}\n}\n")
        }
        let before = try TreeSnapshot(workspace.root)
        for command in ["status", "migrate", "adopt"] {
            let result = try workspace.run(command)
            #expect(result.exitCode == .fileError && result.errorLines.count == 1, "\(command): \(result.output)")
            #expect(result.stderr.contains("This folder is in Drizzle's v1 layout (2 folders holding migration.sql and snapshot.json: 20250101000000_init, 20250102000000_tags), which MigrationKit does not read")
                    && result.stderr.contains("record what each database has with `baseline --to`"), "\(command): \(result.stderr)")
        }
        try expectUnchanged(before, "refused commands")
    }

    /// goose's Go migrations, however many, are one sentence with the count and the way
    /// through (navidrome keeps dozens beside its SQL ones).
    @Test func codeMigrationsAreNamedOnceWithTheWayThrough() throws {
        let workspace = try Workspace()
        try workspace.migration("20240101000000_init.sql", "-- +goose Up\nCREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
        for n in 1...20 { try workspace.migration(String(format: "202401020000%02d_backfill_%d.go", n, n), "package migrations\n") }
        let status = try workspace.run("status")
        #expect(status.exitCode == .fileError && status.errorLines.count == 1, "\(status.output)")
        for words in ["20240102000001_backfill_1.go: goose runs this Go migration and 19 more like it (20240102000002_backfill_2.go, 20240102000003_backfill_3.go, 20240102000004_backfill_4.go and 16 more)",
                      "write each as SQL of its version (VERSION_NAME.sql with `-- +goose Up`)", "move them out of the migrations folder and record what each database has with `baseline --to`"] {
            #expect(status.stderr.contains(words), "\(words): \(status.stderr)")
        }
    }

    /// Flyway's Java or Kotlin migrations (`JDBC` rows) that no file carries: `adopt`
    /// refuses, naming them, since a database not yet past them would never get what they
    /// did; the same version written as SQL is mapped (its checksum is the code's, not
    /// compared) and proven; `--accept-code-migrations` adopts past them.
    @Test func aLedgerThatRecordsCodeMigrationsIsNotAdoptedUnlessTold() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.flyway, in: workspace, applied: 2, pending: 1)
        _ = try fixture.query(workspace, """
            INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum, installed_by, execution_time, success)
            VALUES (3, '2.1', 'copy bodies', 'JDBC', 'db.migration.V2_1__CopyBodies', NULL, 'app', 40, 1);
            """)
        let before = try TreeSnapshot(workspace.root)
        let refused = try workspace.run("adopt")
        #expect(refused.exitCode == .refused, "\(refused.output)")
        for words in ["Flyway ran version 2.1 as Java or Kotlin code, which MigrationKit cannot run and no file of the folder carries",
                      "write each as SQL (V<version>__<description>.sql doing what the code does", "adopt past it with --accept-code-migrations"] {
            #expect(refused.stderr.contains(words), "\(words): \(refused.stderr)")
        }
        try expectUnchanged(before, "a refused adopt")

        let past = try workspace.run("adopt", ["--accept-code-migrations", "--dry-run"])
        #expect(past.status == 0 && past.stdout.contains("Would record 2 migrations from Flyway's ledger"), "\(past.output)")

        try workspace.migration("V2.1__copy_bodies.sql", "UPDATE notes SET body = body;\n")
        let written = try workspace.run("adopt")
        #expect(written.status == 0 && written.stdout.contains("Adopted V2.1__copy_bodies") && written.stdout.contains("Recorded 3 migrations"), "\(written.output)")
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied \(fixture.identifiers[2])"), "\(migrate.output)")
    }

    /// A dirty golang-migrate version: `status` and `migrate` say it is dirty and how to
    /// repair it, as `adopt` does, and change nothing.
    @Test func statusAndMigrateSayDirtyWhereAdoptWould() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.golangMigrate, in: workspace, applied: 2, pending: 1)
        _ = try fixture.query(workspace, "UPDATE schema_migrations SET dirty = 1;")
        let before = try TreeSnapshot(workspace.root)
        let said = ["was migrated by golang-migrate (its ledger's last version is 2, which it marked dirty (it failed half way))",
                    "repair the database and clear the dirty flag as golang-migrate says (`migrate force`), then run `migrationkit adopt`"]
        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.exitCode == .refused, "\(status.output)")
        let migrate = try workspace.run("migrate")
        #expect(migrate.exitCode == .refused, "\(migrate.output)")
        for words in said {
            #expect(status.stdout.contains(words), "\(words): \(status.stdout)")
            #expect(migrate.stderr.contains(words), "\(words): \(migrate.stderr)")
        }
        try expectUnchanged(before, "status and a refused migrate")
    }
}
