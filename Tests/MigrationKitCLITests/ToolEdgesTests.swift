import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// The edges of the named tools' folders: each folder in its tool's own order (diesel's
/// versions as text, as vaultwarden's databases ran them), lint's constants as SQLite
/// reads them, `check` on the project file's folder, and a layout two tools write named
/// after the tool whose ledger the database holds.
@Suite struct ToolEdgesTests {
    /// vaultwarden's diesel folder shape: one name with `_` where the others have `-`,
    /// whose version (`20240313`) sorts as text after `20240306170000`, as diesel (which
    /// orders versions as text) ran it: adopted, then migrated as diesel would.
    @Test func aDieselFolderIsInDieselsOwnOrder() throws {
        let workspace = try Workspace()
        let folders = [("2024-03-06-170000_add_devices", "CREATE TABLE devices (id INTEGER PRIMARY KEY);"),
                       ("2024-03-13_170000_sso_userscascade", "CREATE TABLE sso_users (id INTEGER PRIMARY KEY, deviceId INTEGER REFERENCES devices(id));"),
                       ("2024-06-05-131359_add_settings", "ALTER TABLE devices ADD COLUMN settings TEXT NOT NULL default \"{}\";")]
        for (name, up) in folders {
            try FileManager.default.createDirectory(atPath: workspace.migrations + "/" + name, withIntermediateDirectories: true)
            try workspace.migration(name + "/up.sql", up + "\n")
            try workspace.migration(name + "/down.sql", "SELECT 1;\n")
        }
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            CREATE TABLE devices (id INTEGER PRIMARY KEY);
            CREATE TABLE sso_users (id INTEGER PRIMARY KEY, deviceId INTEGER REFERENCES devices(id));
            INSERT INTO devices (id) VALUES (7);
            CREATE TABLE IF NOT EXISTS __diesel_schema_migrations (version VARCHAR(50) PRIMARY KEY NOT NULL, run_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
            INSERT INTO __diesel_schema_migrations (version) VALUES ('20240306170000'), ('20240313');
            """)
        try #require(made.status == 0, "\(made.output)")
        let status = try workspace.run("status")
        #expect(status.status == 0, "\(status.output)")
        let adopt = try workspace.run("adopt")
        #expect(adopt.status == 0 && adopt.stdout.contains("Recorded 2 migrations from diesel's ledger"), "\(adopt.output)")
        // The pending one adds a column with a double-quoted default, a constant to SQLite.
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 2024-06-05-131359_add_settings") && !migrate.stderr.contains("non-constant-default"), "\(migrate.output)")
        let rows = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT id, settings FROM devices; SELECT identifier FROM grdb_migrations ORDER BY rowid;")
        #expect(rows.stdout == "7|{}\n" + folders.map { $0.0 + "\n" }.joined(), "\(rows.output)")
    }

    /// `check` takes the migrations folder from migrationkit.toml, as every command does.
    @Test func checkTakesTheProjectFilesFolder() throws {
        let workspace = try Workspace()
        try FileManager.default.createDirectory(atPath: workspace.path("db/migrations"), withIntermediateDirectories: true)
        try workspace.write("db/migrations/0001_notes.sql", "-- migrate:up\nCREATE TABLE notes (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE notes;\n")
        try workspace.write("migrationkit.toml", "migrations = \"db/migrations\"\n")
        let check = try Tool.run(["check"], directory: workspace.root)
        #expect(check.status == 0 && check.stdout.contains("All ") && !check.output.contains("Migrations"), "\(check.output)")
    }

    /// A folder of `.up.sql`/`.down.sql` pairs is golang-migrate's and sqlx's alike: `status`
    /// names the tool whose ledger the database holds.
    @Test func aLayoutTwoToolsWriteIsNamedAfterTheDatabasesLedger() throws {
        let workspace = try Workspace()
        try workspace.migration("20240101000001_notes.up.sql", "CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
        try workspace.migration("20240101000001_notes.down.sql", "DROP TABLE notes;\n")
        let alone = try workspace.run("status")
        #expect(alone.stdout.contains("golang-migrate layout (detected from its files)"), "\(alone.output)")
        let made = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            CREATE TABLE notes (id INTEGER PRIMARY KEY);
            CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL, installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
              success BOOLEAN NOT NULL, checksum BLOB NOT NULL, execution_time BIGINT NOT NULL);
            INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (20240101000001, 'notes', 1, X'00', 1);
            """)
        try #require(made.status == 0, "\(made.output)")
        let status = try workspace.run("status")
        #expect(status.stdout.contains("sqlx layout (detected from its files and _sqlx_migrations)") && !status.stdout.contains("golang-migrate layout"), "\(status.output)")
    }
}
