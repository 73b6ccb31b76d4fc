import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// Prisma's, Drizzle's and refinery's folders and ledgers, read as those tools read
/// them: each one's rules for what is applied, failed or edited, and its layout's
/// particulars (docs/coming-from/prisma.md, drizzle.md, refinery.md). Every database is
/// one the tool's own source would leave (`OtherToolFixture`).
@Suite struct NextRingToolsTests {
    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// A failed Prisma row (neither finished nor rolled back) is refused as Prisma
    /// refuses it; a rolled-back attempt does not count, so its folder is pending; a
    /// `migration.sql` whose line endings a checkout changed is the same file, one edited
    /// otherwise is refused.
    @Test func prismaFailedRolledBackAndEditedRows() throws {
        let failed = try Workspace()
        let fixture = try OtherToolFixture.make(.prisma, in: failed, applied: 2, pending: 1)
        _ = try fixture.query(failed, "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at) VALUES ('f', 'x', '\(fixture.identifiers[2])', '2024-01-02');")
        let before = try TreeSnapshot(failed.root)
        let refused = try failed.run("adopt")
        #expect(refused.exitCode == .refused && refused.stderr.contains("Prisma recorded version \(fixture.identifiers[2]) as failed; repair it with Prisma first"), "\(refused.output)")
        let status = try failed.run("status")
        #expect(status.stdout.contains("was migrated by Prisma (its ledger's last version is \(fixture.identifiers[2]); version \(fixture.identifiers[2]) failed)")
                && status.stdout.contains("repair the failed version with Prisma first, then run `migrationkit adopt`"), "\(status.output)")
        try expectUnchanged(before, "a refused adopt and a status")

        // `prisma migrate resolve --rolled-back`: the failed attempt no longer counts.
        _ = try fixture.query(failed, "UPDATE _prisma_migrations SET rolled_back_at = '2024-01-03' WHERE id = 'f';")
        try write("-- CreateTable\n" + OtherToolFixture.upSQL(1).replacingOccurrences(of: "\n", with: "\r\n") + "\r\n", to: fixture.upFiles[0])
        let adopt = try failed.run("adopt")
        #expect(adopt.status == 0 && adopt.stdout.contains("Recorded 2 migrations from Prisma's ledger"), "\(adopt.output)")
        #expect(try failed.run("migrate", ["--no-backup"]).stdout.contains("Applied \(fixture.identifiers[2])"))

        let edited = try Workspace()
        let other = try OtherToolFixture.make(.prisma, in: edited, applied: 2, pending: 0)
        try write("-- CreateTable\n" + OtherToolFixture.upSQL(2).replacingOccurrences(of: "VALUES (1)", with: "VALUES (1) ") + "\n", to: other.upFiles[1])
        let differs = try edited.run("adopt")
        #expect(differs.exitCode == .refused && differs.stderr.contains("\(other.identifiers[1])/migration.sql differs from the version \(other.identifiers[1]) Prisma applied"), "\(differs.output)")
    }

    /// A Prisma folder's `down.sql` is the down SQL; `new` writes the next folder with
    /// both files; a folder without `migration.sql` is refused naming it; a table Prisma
    /// rebuilds (its RedefineTables migration) keeps every row after an adoption.
    @Test func prismaFoldersDownSQLAndRebuiltTables() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.prisma, in: workspace, applied: 2, pending: 0)
        #expect(try workspace.run("adopt").status == 0)
        let rebuild = "20240102000000_notes_title"
        try FileManager.default.createDirectory(atPath: workspace.migrations + "/" + rebuild, withIntermediateDirectories: true)
        try workspace.migration(rebuild + "/migration.sql", """
            -- RedefineTables
            PRAGMA defer_foreign_keys=ON;
            PRAGMA foreign_keys=OFF;
            CREATE TABLE "new_notes" (
                "id" INTEGER NOT NULL PRIMARY KEY,
                "body" TEXT NOT NULL,
                "title" TEXT NOT NULL DEFAULT ''
            );
            INSERT INTO "new_notes" ("body", "id") SELECT "body", "id" FROM "notes";
            DROP TABLE "notes";
            ALTER TABLE "new_notes" RENAME TO "notes";
            PRAGMA foreign_keys=ON;
            PRAGMA defer_foreign_keys=OFF;

            """)
        try workspace.migration(rebuild + "/down.sql", """
            CREATE TABLE "old_notes" ("id" INTEGER NOT NULL PRIMARY KEY, "body" TEXT NOT NULL);
            INSERT INTO "old_notes" ("id", "body") SELECT "id", "body" FROM "notes";
            DROP TABLE "notes";
            ALTER TABLE "old_notes" RENAME TO "notes";

            """)
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied \(rebuild)"), "\(migrate.output)")
        #expect(migrate.stderr.contains("warning[pragma-foreign-keys]"), "\(migrate.stderr)")
        #expect(try fixture.query(workspace, "SELECT id, body, title FROM notes ORDER BY id; SELECT noteId FROM tag_2;") == ["1|first|", "2|kept|", "1"])
        let rollback = try workspace.run("rollback", ["--no-backup"])
        #expect(rollback.status == 0 && rollback.stdout.contains(rebuild), "\(rollback.output)")
        #expect(try fixture.query(workspace, "SELECT sql LIKE '%title%' FROM sqlite_master WHERE name = 'notes'; SELECT body FROM notes ORDER BY id;") == ["0", "first", "kept"])

        let new = try workspace.run("new", ["add_tags"])
        #expect(new.status == 0, "\(new.output)")
        let created = try FileManager.default.contentsOfDirectory(atPath: workspace.migrations).filter { $0.hasSuffix("_add_tags") }
        #expect(created.count == 1 && created[0].count == 14 + "_add_tags".count, "\(created)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: workspace.migrations + "/" + (created.first ?? ""))) == ["migration.sql", "down.sql"])

        try FileManager.default.createDirectory(atPath: workspace.migrations + "/20240103000000_empty", withIntermediateDirectories: true)
        let empty = try workspace.run("status")
        #expect(empty.exitCode == .fileError && empty.stderr.contains("20240103000000_empty: This folder has no migration.sql, and Prisma reads every folder"), "\(empty.output)")
    }

    /// Drizzle applies every entry newer than its newest row and never compares its hash:
    /// an edited comment adopts, proven by the schema; an entry older than a recorded one
    /// with no row of its own never ran, and is refused; a file the journal does not list,
    /// an entry with no file and a `when` out of order are refused (exit 9); `new` says to
    /// use drizzle-kit.
    @Test func drizzleJournalAndLedgerRules() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.drizzle, in: workspace, applied: 3, pending: 0)
        try write("-- a comment added after Drizzle ran it\n" + (try String(contentsOfFile: fixture.upFiles[0], encoding: .utf8)), to: fixture.upFiles[0])
        _ = try fixture.query(workspace, "DELETE FROM __drizzle_migrations WHERE created_at = \(fixture.versions[1]); DROP TABLE tag_2;")
        let before = try TreeSnapshot(workspace.root)
        let skipped = try workspace.run("adopt")
        #expect(skipped.exitCode == .refused && skipped.stderr.contains("the ledger records \(fixture.identifiers[2]) but not \(fixture.identifiers[1]) before it"), "\(skipped.output)")
        try expectUnchanged(before, "a refused adopt")

        let adoptable = try Workspace()
        let other = try OtherToolFixture.make(.drizzle, in: adoptable, applied: 2, pending: 1)
        try write("-- a comment added after Drizzle ran it\n" + (try String(contentsOfFile: other.upFiles[1], encoding: .utf8)), to: other.upFiles[1])
        let adopt = try adoptable.run("adopt")
        #expect(adopt.status == 0 && adopt.stdout.contains("Recorded 2 migrations from Drizzle's ledger (last version \(other.versions[1]))"), "\(adopt.output)")
        let new = try adoptable.run("new", ["more"])
        #expect(new.exitCode == .usage && new.stderr.contains("write the next one with `drizzle-kit generate`"), "\(new.output)")

        try adoptable.migration("9999_stray.sql", "CREATE TABLE stray (x);\n")
        let stray = try adoptable.run("status")
        #expect(stray.exitCode == .fileError && stray.stderr.contains("9999_stray.sql: meta/_journal.json does not list this file, so Drizzle does not run it"), "\(stray.output)")
        try FileManager.default.removeItem(atPath: adoptable.migrations + "/9999_stray.sql")
        try FileManager.default.removeItem(atPath: other.upFiles[2])
        let missing = try adoptable.run("status")
        #expect(missing.exitCode == .fileError && missing.stderr.contains("The journal lists \(other.identifiers[2]), and there is no \(other.identifiers[2]).sql beside it"), "\(missing.output)")
    }

    /// refinery's checksum counts every byte (an edit and a CRLF checkout alike); a `U`
    /// file with no `V` file of its version makes the folder refinery's, whose `U` file
    /// is a migration; refinery's Rust migrations are refused in one sentence.
    @Test func refineryChecksumsUnversionedFilesAndRustMigrations() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.refinery, in: workspace, applied: 2, pending: 0)
        let original = try String(contentsOfFile: fixture.upFiles[1], encoding: .utf8)
        try write(original.replacingOccurrences(of: "\n", with: "\r\n"), to: fixture.upFiles[1])
        let crlf = try workspace.run("adopt", ["--dry-run"])
        #expect(crlf.exitCode == .refused && crlf.stderr.contains("V2__create_2.sql differs from the version 2 refinery applied"), "\(crlf.output)")
        try write(original, to: fixture.upFiles[1])
        #expect(try workspace.run("adopt").status == 0)

        try workspace.migration("U3__backfill.sql", "INSERT INTO notes (body) VALUES ('backfilled');\n")
        let status = try workspace.run("status")
        #expect(status.stdout.contains("  migrations: \(workspace.migrations), refinery layout (detected from its files)") && status.stdout.contains("U3__backfill"), "\(status.output)")
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied U3__backfill"), "\(migrate.output)")

        for n in 4...6 { try workspace.migration("V\(n)__code_\(n).rs", "fn migration() -> String { String::new() }\n") }
        let code = try workspace.run("status")
        #expect(code.exitCode == .fileError && code.errorLines.count == 1, "\(code.output)")
        #expect(code.stderr.contains("V4__code_4.rs: refinery runs this Rust migration and 2 more like it (V5__code_5.rs, V6__code_6.rs), and MigrationKit runs SQL migrations only"), "\(code.stderr)")
    }

    /// sql-migrate's files: sections, `StatementBegin`/`End` around a trigger, and
    /// `notransaction` (a note); a second section is refused; an edited file is refused by
    /// the SHA-256 sql-migrate recorded. A D1 folder is sqlx's up-only files, named by
    /// wrangler's ledger; `new` writes its next one.
    @Test func sqlMigrateSectionsAndD1Names() throws {
        let workspace = try Workspace()
        let fixture = try OtherToolFixture.make(.sqlMigrate, in: workspace, applied: 2, pending: 0)
        try write("-- edited\n" + (try String(contentsOfFile: fixture.upFiles[0], encoding: .utf8)), to: fixture.upFiles[0])
        let edited = try workspace.run("adopt")
        #expect(edited.exitCode == .refused && edited.stderr.contains("1_create_1.sql differs from the version 1_create_1.sql sql-migrate applied"), "\(edited.output)")
        try write(String((try String(contentsOfFile: fixture.upFiles[0], encoding: .utf8)).dropFirst("-- edited\n".count)), to: fixture.upFiles[0])
        #expect(try workspace.run("adopt").status == 0)
        try workspace.migration("3_audit.sql", """
            -- +migrate Up notransaction
            CREATE TABLE audit (noteId INTEGER);
            -- +migrate StatementBegin
            CREATE TRIGGER notes_audit AFTER INSERT ON notes BEGIN
                INSERT INTO audit (noteId) VALUES (new.id);
            END;
            -- +migrate StatementEnd

            -- +migrate Down
            DROP TRIGGER notes_audit;
            DROP TABLE audit;

            """)
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0 && migrate.stderr.contains("3_audit.sql:1: note[transaction-control]"), "\(migrate.output)")
        #expect(try fixture.query(workspace, "INSERT INTO notes (body) VALUES ('x'); SELECT count(*) FROM audit;") == ["1"])
        #expect(try workspace.run("rollback", ["--no-backup"]).status == 0)
        #expect(try fixture.query(workspace, "SELECT count(*) FROM sqlite_master WHERE name IN ('audit', 'notes_audit');") == ["0"])
        try workspace.migration("4_twice.sql", "-- +migrate Up\nSELECT 1;\n-- +migrate Down\nSELECT 1;\n-- +migrate Up\nSELECT 2;\n")
        let twice = try workspace.run("status")
        #expect(twice.exitCode == .fileError && twice.stderr.contains("4_twice.sql:5: A second `-- +migrate Up` line"), "\(twice.output)")

        let d1 = try Workspace()
        _ = try OtherToolFixture.make(.d1, in: d1, applied: 2, pending: 1)
        let status = try d1.run("status")
        #expect(status.stdout.contains("was migrated by Cloudflare D1 (wrangler) (its ledger's last version is 0002_create_2.sql)"), "\(status.output)")
        #expect(try d1.run("adopt").status == 0)
        let new = try d1.run("new", ["more"])
        #expect(new.status == 0 && FileManager.default.fileExists(atPath: d1.migrations + "/0004_more.sql"), "\(new.output)")
    }
}
