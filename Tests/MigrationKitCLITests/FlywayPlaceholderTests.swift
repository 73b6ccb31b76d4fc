import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// Flyway's placeholders as Flyway replaces them (docs/coming-from/flyway.md): a value
/// from `--placeholder NAME=VALUE` or the project file's `[placeholders]` (names without
/// case), Flyway's own `${flyway:…}`, replaced in the SQL and its comments when the files
/// are read; a placeholder with no value refused naming it; the checksums, Flyway's and
/// MigrationKit's, of the files as written, so a folder Flyway ran with placeholders
/// adopts and migrates as it is.
@Suite struct FlywayPlaceholderTests {
    /// A database Flyway migrated with `${schema_version_label}` and `${flyway:filename}`
    /// in its files, its history written as Flyway writes it (the CRC32 of each file as
    /// written), and a pending migration stamped with `${flyway:timestamp}`.
    private func flywayDatabase() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.migration("V1__notes.sql", "-- made for ${Label}\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, label TEXT NOT NULL DEFAULT '${label}');\nINSERT INTO notes (body) VALUES ('${flyway:filename}');\n")
        try workspace.migration("V2__seen.sql", "CREATE TABLE seen (at TEXT NOT NULL);\n")
        try workspace.migration("V3__stamp.sql", "INSERT INTO seen (at) VALUES ('${flyway:timestamp}');\nINSERT INTO notes (body, label) VALUES ('${flyway:defaultSchema}', '${label}');\n")
        var history = """
            CREATE TABLE "main"."flyway_schema_history" ("installed_rank" INT NOT NULL PRIMARY KEY, "version" VARCHAR(50), "description" VARCHAR(200) NOT NULL,
              "type" VARCHAR(20) NOT NULL, "script" VARCHAR(1000) NOT NULL, "checksum" INT, "installed_by" VARCHAR(100) NOT NULL,
              "installed_on" TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now')), "execution_time" INT NOT NULL, "success" BOOLEAN NOT NULL);

            """
        for (rank, script) in ["V1__notes.sql", "V2__seen.sql"].enumerated() {
            let checksum = try OtherToolFixture.flywayChecksum(workspace.migrations + "/" + script)
            history += "INSERT INTO flyway_schema_history VALUES (\(rank + 1), '\(rank + 1)', 'x', 'SQL', '\(script)', \(checksum), 'app', '2024-01-01', 5, 1);\n"
        }
        // What Flyway left: its files' SQL with the app's values in place.
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, label TEXT NOT NULL DEFAULT 'beta');
            INSERT INTO notes (body) VALUES ('V1__notes.sql');
            CREATE TABLE seen (at TEXT NOT NULL);
            \(history)
            """)
        try #require(made.status == 0, "\(made.output)")
        return workspace
    }

    @Test func aFolderFlywayRanWithPlaceholdersAdoptsAndMigratesAsItIs() throws {
        let workspace = try flywayDatabase()
        let before = try TreeSnapshot(workspace.root)
        let missing = try workspace.run("status")
        #expect(missing.exitCode == .fileError, "\(missing.output)")
        #expect(missing.stderr.contains("V1__notes.sql:1: Flyway replaces `${Label}`, `${label}` before it runs this file, and no value is given for them (Flyway refuses it so too); give them values with --placeholder Label=VALUE --placeholder label=VALUE"),
                "\(missing.stderr)")
        try expectUnchanged(before, "status without the placeholder's value")

        // Names without case, as Flyway compares them.
        let adopt = try workspace.run("adopt", ["--placeholder", "LABEL=beta"])
        #expect(adopt.status == 0 && adopt.stdout.contains("Recorded 2 migrations from Flyway's ledger"), "\(adopt.output)")
        let migrate = try workspace.run("migrate", ["--placeholder", "label=beta", "--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied V3__stamp"), "\(migrate.output)")
        let rows = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT body, label FROM notes ORDER BY id; SELECT at LIKE '2%-%-% %:%:%' FROM seen;")
        #expect(rows.stdout == "V1__notes.sql|beta\nmain|beta\n1\n", "\(rows.output)")

        // The project file's value, and another time for ${flyway:timestamp}: no
        // migration is edited, and the schema is what the files make with it; another
        // value (a flag beats the file) edits no migration either, and diff shows the
        // schema it would make.
        try workspace.write("migrationkit.toml", "[placeholders]\nlabel = \"beta\"\n")
        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.status == 0 && !status.stdout.contains("modified"), "\(status.output)")
        #expect(try workspace.run("diff").status == 0)
        let other = try workspace.run("status", ["--exit-code", "--placeholder", "label=gamma"])
        #expect(other.status == 0 && !other.stdout.contains("modified"), "\(other.output)")
        let drift = try workspace.run("diff", ["--placeholder", "label=gamma"])
        #expect(drift.exitCode == .verificationFailed && drift.stdout.contains("gamma"), "\(drift.output)")
    }

    @Test func aBadPlaceholderIsAUsageErrorAndTheProjectFileTakesText() throws {
        let workspace = try flywayDatabase()
        let bad = try workspace.run("status", ["--placeholder", "label"])
        #expect(bad.exitCode == .usage && bad.stderr.contains("--placeholder takes NAME=VALUE"), "\(bad.output)")
        try workspace.write("migrationkit.toml", "[placeholders]\nlabel = 3\n")
        let number = try workspace.run("status")
        #expect(number.exitCode == .usage && number.stderr.contains("`placeholders.label` must be text in quotes"), "\(number.output)")
    }
}
