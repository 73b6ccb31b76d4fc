import Foundation
import MigrationKitTestSupport
import Testing

/// A database another migration tool left, and the folder of migrations it ran, written
/// as that tool writes them: its layout's file names, and its ledger table created with
/// the statements the tool's own source runs in SQLite, with the rows it records. The
/// migrations ran through the `sqlcipher` shell, a client of its own, as the tool would
/// have run them.
///
/// Every migration `n` (1-based) creates a table and a row: the first `notes` (with a
/// note "first"), each later one `tag_n` pointing at it. The app then added a note
/// "kept", which adopting and migrating must keep.
///
///     let fixture = try OtherToolFixture.make(.goose, in: workspace, applied: 3, pending: 1)
///     try workspace.run("adopt")   // records fixture.applied
public struct OtherToolFixture: Sendable {
    /// The tool that migrated the database (`adopt --from` takes `name`).
    public enum Tool: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case golangMigrate = "golang-migrate", dbmate, sqlx, diesel, goose, flyway, prisma, drizzle, refinery, d1, sqlMigrate = "sql-migrate", userVersion = "user-version"
        case sqlDelight = "sqldelight", liquibase, atlas, yoyo

        public var name: String { rawValue }
        public var testDescription: String { rawValue }
        /// Its ledger tables (none for a `user_version` ladder).
        public var ledgerTables: [String] {
            switch self {
            case .golangMigrate, .dbmate: return ["schema_migrations"]
            case .sqlx: return ["_sqlx_migrations"]
            case .diesel: return ["__diesel_schema_migrations"]
            case .goose: return ["goose_db_version"]
            case .flyway: return ["flyway_schema_history"]
            case .prisma: return ["_prisma_migrations"]
            case .drizzle: return ["__drizzle_migrations"]
            case .refinery: return ["refinery_schema_history"]
            case .d1: return ["d1_migrations"]
            case .sqlMigrate: return ["gorp_migrations"]
            case .liquibase: return ["DATABASECHANGELOG", "DATABASECHANGELOGLOCK"]
            case .atlas: return ["atlas_schema_revisions"]
            case .yoyo: return ["_yoyo_migration", "_yoyo_log", "_yoyo_version", "yoyo_lock"]
            case .userVersion, .sqlDelight: return []
            }
        }

        /// Whether its ledger is `PRAGMA user_version` (`adopt --from user-version`).
        public var isUserVersionLadder: Bool { self == .userVersion || self == .sqlDelight }
    }

    public let tool: Tool
    /// The database (the workspace's `app.db`).
    public let database: String
    /// Every migration's identifier (its file's name without the suffix, a diesel
    /// migration's folder), in order.
    public let identifiers: [String]
    /// The migrations the tool applied.
    public let applied: [String]
    /// The version the tool recorded for each migration, in order, as it writes it.
    public let versions: [String]
    /// The up file of each migration, in order.
    public let upFiles: [String]

    /// The SQL of migration `n`'s up.
    public static func upSQL(_ n: Int) -> String {
        n == 1 ? "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\nINSERT INTO notes (body) VALUES ('first');"
            : "CREATE TABLE tag_\(n) (id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL REFERENCES notes(id));\nINSERT INTO tag_\(n) (noteId) VALUES (1);"
    }

    public static func downSQL(_ n: Int) -> String { n == 1 ? "DROP TABLE notes;" : "DROP TABLE tag_\(n);" }

    /// Writes `applied + pending` migrations in `tool`'s layout into the workspace's
    /// migrations folder, and the database `tool` leaves after applying the first
    /// `applied`: encrypted with the workspace's key, or plaintext.
    public static func make(_ tool: Tool, in workspace: Workspace, applied: Int, pending: Int, encrypted: Bool = true) throws -> OtherToolFixture {
        let count = applied + pending
        var identifiers: [String] = [], versions: [String] = [], upFiles: [String] = []
        for n in 1...count {
            let up = upSQL(n), down = downSQL(n)
            let identifier: String, version: String, upFile: String
            switch tool {
            case .golangMigrate:
                identifier = String(format: "%06d_create_%d", n, n)
                version = "\(n)"
                upFile = identifier + ".up.sql"
                try workspace.migration(upFile, up + "\n")
                try workspace.migration(identifier + ".down.sql", down + "\n")
            case .dbmate:
                identifier = String(format: "202401010000%02d_create_%d", n, n)
                version = String(format: "202401010000%02d", n)
                upFile = identifier + ".sql"
                try workspace.migration(upFile, "-- migrate:up\n\(up)\n\n-- migrate:down\n\(down)\n")
            case .sqlx:
                identifier = String(format: "202401010000%02d_create_%d", n, n)
                version = String(format: "202401010000%02d", n)
                upFile = identifier + ".sql"
                try workspace.migration(upFile, "-- Add migration script here\n\(up)\n")
            case .diesel:
                identifier = String(format: "2024-01-01-0000%02d_create_%d", n, n)
                version = String(format: "202401010000%02d", n)
                upFile = identifier + "/up.sql"
                try FileManager.default.createDirectory(atPath: workspace.migrations + "/" + identifier, withIntermediateDirectories: true)
                try workspace.migration(upFile, "-- Your SQL goes here\n\(up)\n")
                try workspace.migration(identifier + "/down.sql", "-- This file should undo anything in `up.sql`\n\(down)\n")
            case .goose:
                identifier = String(format: "%05d_create_%d", n, n)
                version = "\(n)"
                upFile = identifier + ".sql"
                try workspace.migration(upFile, "-- +goose Up\n-- +goose StatementBegin\n\(up)\n-- +goose StatementEnd\n\n-- +goose Down\n\(down)\n")
            case .flyway:
                identifier = "V\(n)__create_\(n)"
                version = "\(n)"
                upFile = identifier + ".sql"
                try workspace.migration(upFile, "\(up)\n")
                try workspace.migration("U\(n)__create_\(n).sql", "\(down)\n")
            case .prisma:
                // `prisma migrate dev`: a folder per migration, its SQL under a comment
                // per step, and the provider's lock file beside them.
                identifier = String(format: "202401010000%02d_create_%d", n, n)
                version = identifier
                upFile = identifier + "/migration.sql"
                try FileManager.default.createDirectory(atPath: workspace.migrations + "/" + identifier, withIntermediateDirectories: true)
                try workspace.migration(upFile, "-- CreateTable\n\(up)\n")
                try workspace.migration("migration_lock.toml", "# Please do not edit this file manually\n# It should be added in your version-control system (i.e. Git)\nprovider = \"sqlite\"\n")
            case .drizzle:
                // `drizzle-kit generate`: TAG.sql with its statements split by breakpoint
                // lines, listed in meta/_journal.json with the time it was generated.
                identifier = String(format: "%04d_create_%d", n - 1, n)
                version = String(Self.drizzleEpoch + Int64(n) * 60_000)
                upFile = identifier + ".sql"
                try workspace.migration(upFile, up.replacingOccurrences(of: ";\n", with: ";\n--> statement-breakpoint\n") + "\n")
            case .refinery:
                identifier = "V\(n)__create_\(n)"
                version = "\(n)"
                upFile = identifier + ".sql"
                try workspace.migration(upFile, "\(up)\n")
            case .d1:
                // `wrangler d1 migrations create`: NNNN_name.sql, its first line a comment.
                identifier = String(format: "%04d_create_%d", n, n)
                version = identifier + ".sql"
                upFile = identifier + ".sql"
                try workspace.migration(upFile, "-- Migration number: \(String(format: "%04d", n)) \t 2024-01-01T00:00:00.000Z\n\(up)\n")
            case .sqlMigrate:
                identifier = "\(n)_create_\(n)"
                version = identifier + ".sql"
                upFile = identifier + ".sql"
                try workspace.migration(upFile, "-- +migrate Up\n-- +migrate StatementBegin\n\(up)\n-- +migrate StatementEnd\n\n-- +migrate Down\n\(down)\n")
            case .sqlDelight:
                // `N.sqm` takes the schema from version N to N + 1: SQLDelight's version 1
                // is the empty schema of an app that derives its schema from its migrations
                // (`deriveSchemaFromMigrations`), and the database records the version
                // after the last file it ran.
                identifier = "\(n)"
                version = "\(n + 1)"
                upFile = identifier + ".sqm"
                try workspace.migration(upFile, "\(up)\n")
            case .liquibase:
                // A formatted SQL changelog per changeset, as a master changelog's
                // `includeAll` of this folder reads them, with its rollback and comment.
                let file = String(format: "%03d-create-%d.sql", n, n)
                identifier = "\(file)::create-\(n)::app"
                version = identifier
                upFile = file
                try workspace.migration(file, "--liquibase formatted sql\n\n--changeset app:create-\(n)\n--comment: create \(n)\n\(up)\n--rollback \(down)\n")
            case .atlas:
                // `atlas migrate diff`: VERSION_NAME.sql with a comment per statement;
                // atlas.sum is written once every file is there.
                identifier = String(format: "202401010000%02d_create_%d", n, n)
                version = String(format: "202401010000%02d", n)
                upFile = identifier + ".sql"
                try workspace.migration(upFile, n == 1 ? "-- Create \"notes\" table\n\(up)\n" : "-- Create \"tag_\(n)\" table\n\(up)\n")
            case .yoyo:
                // `yoyo new --sql`: DATE_NN_RAND-MESSAGE.sql, its message and the migrations
                // it depends on (the heads before it) in its first lines; its rollback file
                // beside it.
                identifier = String(format: "20240101_%02d_aBc%02d-create-%d", n, n, n)
                version = identifier
                upFile = identifier + ".sql"
                let depends = "-- create \(n)\n-- depends: \(identifiers.last ?? "")\n\n"
                try workspace.migration(upFile, depends + "\(up)\n")
                try workspace.migration(identifier + ".rollback.sql", depends + "\(down)\n")
            case .userVersion:
                identifier = String(format: "%04d_create_%d", n, n)
                version = "\(n)"
                upFile = identifier + ".sql"
                try workspace.migration(upFile, "-- migrate:up\n\(up)\n-- migrate:down\n\(down)\n")
            }
            identifiers.append(identifier)
            versions.append(version)
            upFiles.append(workspace.migrations + "/" + upFile)
        }
        if tool == .drizzle { try writeDrizzleJournal(identifiers, versions, in: workspace) }
        if tool == .atlas { try workspace.migration("atlas.sum", try atlasSum(of: workspace.migrations)) }
        let fixture = OtherToolFixture(tool: tool, database: workspace.database, identifiers: identifiers, applied: Array(identifiers.prefix(applied)),
                                       versions: versions, upFiles: upFiles)
        var script = (1...max(applied, 1)).prefix(applied).map { upSQL($0) }.joined(separator: "\n")
        if applied > 0 { script += "\nINSERT INTO notes (body) VALUES ('kept');" }
        script += "\n" + (try fixture.ledgerSQL(applied: applied))
        let result = try SQLCipherShell.run(workspace.database, keyPragma: encrypted ? workspace.key.pragma : nil, script)
        guard result.status == 0 else { throw FixtureError(message: "the sqlcipher shell could not make \(tool.name)'s database: \(result.stderr)") }
        return fixture
    }

    /// The ledger, as the tool's source creates it in SQLite, with the rows it records
    /// after applying the first `applied` migrations.
    public func ledgerSQL(applied: Int) throws -> String {
        let done = Array(versions.prefix(applied))
        switch tool {
        case .golangMigrate:
            // database/sqlite3: ensureVersionTable, then SetVersion's one row.
            return "CREATE TABLE IF NOT EXISTS schema_migrations (version uint64,dirty bool);\nCREATE UNIQUE INDEX IF NOT EXISTS version_unique ON schema_migrations (version);\n"
                + (done.last.map { "INSERT INTO schema_migrations (version, dirty) VALUES (\($0), 0);" } ?? "")
        case .dbmate:
            // pkg/driver/sqlite: CreateMigrationsTable, InsertMigration.
            return "create table if not exists \"schema_migrations\" (version varchar(128) primary key);\n"
                + done.map { "insert into \"schema_migrations\" (version) values ('\($0)');" }.joined(separator: "\n")
        case .sqlx:
            // sqlx-sqlite's migrate.rs: ensure_migrations_table, then apply's row with
            // the SHA-384 of the file.
            var sql = """
                CREATE TABLE IF NOT EXISTS _sqlx_migrations (
                    version BIGINT PRIMARY KEY,
                    description TEXT NOT NULL,
                    installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
                    success BOOLEAN NOT NULL,
                    checksum BLOB NOT NULL,
                    execution_time BIGINT NOT NULL
                );

                """
            for (index, version) in done.enumerated() {
                sql += "INSERT INTO _sqlx_migrations ( version, description, success, checksum, execution_time ) VALUES ( \(version), 'create \(index + 1)', 1, X'\(try Self.sha384(upFiles[index]))', 1234567 );\n"
            }
            return sql
        case .diesel:
            // diesel_migrations' setup_migration_table.sql, then a row per migration run.
            return """
                CREATE TABLE IF NOT EXISTS __diesel_schema_migrations (
                       version VARCHAR(50) PRIMARY KEY NOT NULL,
                       run_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
                );

                """ + done.map { "INSERT INTO __diesel_schema_migrations (version) VALUES ('\($0)');" }.joined(separator: "\n")
        case .goose:
            // internal/dialect/dialectquery/sqlite3.go: CreateTable, then the version-0 row
            // goose inserts with it, and a row per migration applied.
            return """
                CREATE TABLE goose_db_version (
                		id INTEGER PRIMARY KEY AUTOINCREMENT,
                		version_id INTEGER NOT NULL,
                		is_applied INTEGER NOT NULL,
                		tstamp TIMESTAMP DEFAULT (datetime('now'))
                	);
                INSERT INTO goose_db_version (version_id, is_applied) VALUES (0, 1);

                """ + done.map { "INSERT INTO goose_db_version (version_id, is_applied) VALUES (\($0), 1);" }.joined(separator: "\n")
        case .flyway:
            // flyway-core's sqlite/createMetaDataTable.sql (schema "main"), then a row per
            // script with its CRC32.
            var sql = """
                CREATE TABLE "main"."flyway_schema_history" (
                    "installed_rank" INT NOT NULL PRIMARY KEY,
                    "version" VARCHAR(50),
                    "description" VARCHAR(200) NOT NULL,
                    "type" VARCHAR(20) NOT NULL,
                    "script" VARCHAR(1000) NOT NULL,
                    "checksum" INT,
                    "installed_by" VARCHAR(100) NOT NULL,
                    "installed_on" TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now')),
                    "execution_time" INT NOT NULL,
                    "success" BOOLEAN NOT NULL
                );

                CREATE INDEX "main"."flyway_schema_history_s_idx" ON "flyway_schema_history" ("success");

                """
            for (index, version) in done.enumerated() {
                let script = (upFiles[index] as NSString).lastPathComponent
                sql += "INSERT INTO \"flyway_schema_history\" (\"installed_rank\", \"version\", \"description\", \"type\", \"script\", \"checksum\", \"installed_by\", \"execution_time\", \"success\") VALUES (\(index + 1), '\(version)', 'create \(index + 1)', 'SQL', '\(script)', \(try Self.flywayChecksum(upFiles[index])), 'app', 12, 1);\n"
            }
            return sql
        case .prisma:
            // schema-engine's sqlite connector: create_migrations_table, then a row per
            // migration with the SHA-256 of its migration.sql, finished.
            var sql = """
                CREATE TABLE "_prisma_migrations" (
                    "id"                    TEXT PRIMARY KEY NOT NULL,
                    "checksum"              TEXT NOT NULL,
                    "finished_at"           DATETIME,
                    "migration_name"        TEXT NOT NULL,
                    "logs"                  TEXT,
                    "rolled_back_at"        DATETIME,
                    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
                    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
                );

                """
            for (index, name) in identifiers.prefix(applied).enumerated() {
                sql += "INSERT INTO \"_prisma_migrations\" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ('\(UUID().uuidString.lowercased())', '\(try Self.sha256(upFiles[index]))', '2024-01-01 00:0\(index):01', '\(name)', '2024-01-01 00:0\(index):00', 1);\n"
            }
            return sql
        case .drizzle:
            // drizzle-orm's sqlite-core migrate: the table, then a row per journal entry
            // applied, with the SHA-256 of the file and the entry's `when`.
            var sql = """
                CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (
                    id SERIAL PRIMARY KEY,
                    hash text NOT NULL,
                    created_at numeric
                );

                """
            for (index, when) in done.enumerated() {
                sql += "INSERT INTO \"__drizzle_migrations\" (\"hash\", \"created_at\") VALUES('\(try Self.sha256(upFiles[index]))', \(when));\n"
            }
            return sql
        case .refinery:
            // refinery_core's ASSERT_MIGRATIONS_TABLE_QUERY, then insert_migration_query's
            // row with refinery's checksum of the file.
            var sql = """
                CREATE TABLE IF NOT EXISTS refinery_schema_history(
                             version INT4 PRIMARY KEY,
                             name VARCHAR(255),
                             applied_on VARCHAR(255),
                             checksum VARCHAR(255));

                """
            for (index, version) in done.enumerated() {
                let name = "create_\(index + 1)"
                sql += "INSERT INTO refinery_schema_history (version, name, applied_on, checksum) VALUES (\(version), '\(name)', '2024-01-01T00:00:0\(index)Z', '\(try Self.refineryChecksum(name: name, version: Int(version) ?? 0, path: upFiles[index]))');\n"
            }
            return sql
        case .d1:
            // wrangler's d1 migrations: the table it creates, then a row per file applied.
            return """
                CREATE TABLE IF NOT EXISTS d1_migrations(
                		id         INTEGER PRIMARY KEY AUTOINCREMENT,
                		name       TEXT UNIQUE,
                		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
                );

                """ + done.map { "INSERT INTO d1_migrations (name) VALUES ('\($0)');" }.joined(separator: "\n")
        case .sqlMigrate:
            // gorp's table for sql-migrate's MigrationRecord, then a row per file applied
            // with the SHA-256 of its bytes.
            var sql = "create table if not exists \"gorp_migrations\" (\"id\" varchar(255) not null primary key, \"checksum\" varchar(255), \"applied_at\" datetime) ;\n"
            for (index, name) in done.enumerated() {
                sql += "insert into \"gorp_migrations\" (\"id\",\"checksum\",\"applied_at\") values ('\(name)','\(try Self.sha256(upFiles[index]))','2024-01-01 00:00:0\(index)');\n"
            }
            return sql
        case .userVersion:
            return "PRAGMA user_version = \(applied);"
        case .sqlDelight:
            // The driver's `PRAGMA user_version = schema.version` after `Schema.migrate`.
            return "PRAGMA user_version = \(done.last ?? "0");"
        case .yoyo:
            // yoyo's backend: its lock table, then its internal schema version 2's log,
            // version and migration tables, then a row per migration applied, keyed by the
            // SHA-256 of its id, and its log row.
            var sql = """
                CREATE TABLE "yoyo_lock" (locked INT DEFAULT 1, ctime TIMESTAMP,pid INT NOT NULL,PRIMARY KEY (locked));
                CREATE TABLE "_yoyo_log" ( id VARCHAR(36), migration_hash VARCHAR(64), migration_id VARCHAR(255), operation VARCHAR(10), username VARCHAR(255), hostname VARCHAR(255), comment VARCHAR(255), created_at_utc TIMESTAMP, PRIMARY KEY (id));
                CREATE TABLE "_yoyo_version" (version INT NOT NULL PRIMARY KEY, installed_at_utc TIMESTAMP);
                INSERT INTO "_yoyo_version" VALUES (2, '2024-01-01 00:00:00');
                CREATE TABLE "_yoyo_migration" ( migration_hash VARCHAR(64), migration_id VARCHAR(255), applied_at_utc TIMESTAMP, PRIMARY KEY (migration_hash));

                """
            for (index, id) in done.enumerated() {
                let hash = try Self.sha256(ofText: id)
                sql += "INSERT INTO \"_yoyo_migration\" (migration_hash, migration_id, applied_at_utc) VALUES ('\(hash)', '\(id)', '2024-01-01 00:00:0\(index)');\n"
                sql += "INSERT INTO \"_yoyo_log\" (id, migration_hash, migration_id, operation, username, hostname, created_at_utc) VALUES ('\(UUID().uuidString.lowercased())', '\(hash)', '\(id)', 'apply', 'app', 'host', '2024-01-01 00:00:0\(index)');\n"
            }
            return sql
        case .atlas:
            // Atlas's ent schema for its revisions table, with the row holding the table's
            // identifier, then a row per file run, `applied` of `total` statements and its
            // atlas.sum hash.
            let sum = try Self.atlasSum(of: (upFiles[0] as NSString).deletingLastPathComponent)
            var sql = """
                CREATE TABLE `atlas_schema_revisions` (`version` text NOT NULL, `description` text NOT NULL, `type` integer NOT NULL DEFAULT (2), `applied` integer NOT NULL DEFAULT (0), `total` integer NOT NULL DEFAULT (0), `executed_at` datetime NOT NULL, `execution_time` integer NOT NULL, `error` text NULL, `error_stmt` text NULL, `hash` text NOT NULL, `partial_hashes` json NULL, `operator_version` text NOT NULL, PRIMARY KEY (`version`));
                INSERT INTO `atlas_schema_revisions` (`version`, `description`, `executed_at`, `execution_time`, `hash`, `operator_version`) VALUES ('.atlas_cloud_identifier', '\(UUID().uuidString.lowercased())', '2024-01-01 00:00:00', 0, '', 'Ariga Atlas v0.32.0');

                """
            for (index, version) in done.enumerated() {
                let name = (upFiles[index] as NSString).lastPathComponent
                let prefix = name + " h1:"
                let line: Substring? = sum.split(separator: "\n").first { $0.hasPrefix(prefix) }
                let hash = line.map { String($0.dropFirst(prefix.count)) } ?? ""
                sql += "INSERT INTO `atlas_schema_revisions` (`version`, `description`, `type`, `applied`, `total`, `executed_at`, `execution_time`, `hash`, `operator_version`) VALUES ('\(version)', 'create_\(index + 1)', 2, 2, 2, '2024-01-01 00:00:0\(index)', 1200000, '\(hash)', 'Ariga Atlas v0.32.0');\n"
            }
            return sql
        case .liquibase:
            // liquibase-standard's CreateDatabaseChangeLogTableGenerator and its lock
            // table's, then MarkChangeSetRanGenerator's row per changeset run, FILENAME
            // the path includeAll gave it, MD5SUM its checksum.
            var sql = """
                CREATE TABLE DATABASECHANGELOGLOCK (ID INT NOT NULL, LOCKED BOOLEAN NOT NULL, LOCKGRANTED datetime, LOCKEDBY VARCHAR(255), CONSTRAINT PK_DATABASECHANGELOGLOCK PRIMARY KEY (ID));
                INSERT INTO DATABASECHANGELOGLOCK (ID, LOCKED) VALUES (1, 0);
                CREATE TABLE DATABASECHANGELOG (ID VARCHAR(255) NOT NULL, AUTHOR VARCHAR(255) NOT NULL, FILENAME VARCHAR(255) NOT NULL, DATEEXECUTED datetime NOT NULL, ORDEREXECUTED INT NOT NULL, EXECTYPE VARCHAR(10) NOT NULL, MD5SUM VARCHAR(35), DESCRIPTION VARCHAR(255), COMMENTS VARCHAR(255), TAG VARCHAR(255), LIQUIBASE VARCHAR(20), CONTEXTS VARCHAR(255), LABELS VARCHAR(255), DEPLOYMENT_ID VARCHAR(10));

                """
            for index in 0..<applied {
                let file = (upFiles[index] as NSString).lastPathComponent
                let checksum = try Self.liquibaseChecksum(changeset: "create-\(index + 1)", path: upFiles[index])
                sql += "INSERT INTO DATABASECHANGELOG (ID, AUTHOR, FILENAME, DATEEXECUTED, ORDEREXECUTED, MD5SUM, DESCRIPTION, COMMENTS, EXECTYPE, CONTEXTS, LABELS, LIQUIBASE, DEPLOYMENT_ID) VALUES ('create-\(index + 1)', 'app', 'db/changelog/changes/\(file)', '2024-01-01 00:00:0\(index)', \(index + 1), '\(checksum)', 'sql', 'create \(index + 1)', 'EXECUTED', NULL, NULL, '4.29.2', '4067200000');\n"
            }
            return sql
        }
    }

    /// The `when` of Drizzle's first journal entry here (2024-01-01, in milliseconds).
    static let drizzleEpoch: Int64 = 1_704_067_200_000

    /// meta/_journal.json as `drizzle-kit generate` writes it, with a snapshot per entry.
    private static func writeDrizzleJournal(_ tags: [String], _ whens: [String], in workspace: Workspace) throws {
        try FileManager.default.createDirectory(atPath: workspace.migrations + "/meta", withIntermediateDirectories: true)
        let entries = zip(tags, whens).enumerated().map { index, entry in
            "    {\n      \"idx\": \(index),\n      \"version\": \"6\",\n      \"when\": \(entry.1),\n      \"tag\": \"\(entry.0)\",\n      \"breakpoints\": true\n    }"
        }
        try workspace.migration("meta/_journal.json", "{\n  \"version\": \"7\",\n  \"dialect\": \"sqlite\",\n  \"entries\": [\n\(entries.joined(separator: ",\n"))\n  ]\n}")
        for (index, _) in tags.enumerated() {
            try workspace.migration(String(format: "meta/%04d_snapshot.json", index), "{\n  \"version\": \"6\",\n  \"dialect\": \"sqlite\",\n  \"tables\": {}\n}")
        }
    }

    /// SHA-256 of a text's UTF-8 bytes, as Python's `hashlib` gives it (yoyo's key of a
    /// migration's id).
    public static func sha256(ofText text: String) throws -> String {
        let result = try ChildProcess.run(["/usr/bin/env", "python3", "-c", "import hashlib, sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())", text])
        guard result.status == 0 else { throw FixtureError(message: "no SHA-256 of \(text): \(result.output)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// SHA-256 of a file's bytes, as coreutils' `sha256sum` gives it.
    public static func sha256(_ path: String) throws -> String {
        let result = try ChildProcess.run(["/usr/bin/sha256sum", path])
        return String(result.stdout.prefix { $0 != " " })
    }

    /// refinery's checksum of a migration file: SipHash-1-3 (keys 0, 0) of the name, the
    /// version as a little-endian `i32` and the file's bytes, each string followed by
    /// 0xFF as Rust hashes a `str`; computed by Python, apart from MigrationKit's own.
    public static func refineryChecksum(name: String, version: Int, path: String) throws -> String {
        let script = """
            import sys, struct
            M = (1 << 64) - 1
            rot = lambda x, b: ((x << b) | (x >> (64 - b))) & M
            v = [0x736f6d6570736575, 0x646f72616e646f6d, 0x6c7967656e657261, 0x7465646279746573]
            def rnd():
                v[0] = (v[0] + v[1]) & M; v[1] = rot(v[1], 13); v[1] ^= v[0]; v[0] = rot(v[0], 32)
                v[2] = (v[2] + v[3]) & M; v[3] = rot(v[3], 16); v[3] ^= v[2]
                v[0] = (v[0] + v[3]) & M; v[3] = rot(v[3], 21); v[3] ^= v[0]
                v[2] = (v[2] + v[1]) & M; v[1] = rot(v[1], 17); v[1] ^= v[2]; v[2] = rot(v[2], 32)
            m = sys.argv[1].encode() + b'\\xff' + struct.pack('<i', int(sys.argv[2])) + open(sys.argv[3], 'rb').read() + b'\\xff'
            n = len(m) - len(m) % 8
            for i in range(0, n, 8):
                w = int.from_bytes(m[i:i + 8], 'little'); v[3] ^= w; rnd(); v[0] ^= w
            w = int.from_bytes(m[n:] + bytes(8 - len(m) + n), 'little') | ((len(m) & 0xff) << 56)
            v[3] ^= w; rnd(); v[0] ^= w; v[2] ^= 0xff; rnd(); rnd(); rnd()
            print(v[0] ^ v[1] ^ v[2] ^ v[3])
            """
        let result = try ChildProcess.run(["/usr/bin/env", "python3", "-c", script, name, "\(version)", path])
        guard result.status == 0 else { throw FixtureError(message: "no refinery checksum for \(path): \(result.output)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Liquibase's checksum (version 9) of the changeset `id` of a formatted SQL changelog:
    /// its lines up to the next `--changeset` line, but for Liquibase's `--rollback`,
    /// `--comment` and `--validCheckSum` ones and `/* liquibase rollback */` blocks, without
    /// spaces, tabs and line breaks, MD5'd; then the MD5 of `9:`,
    /// that and `:`. Computed by Python, apart from MigrationKit's own.
    public static func liquibaseChecksum(changeset id: String, path: String) throws -> String {
        let script = """
            import hashlib, re, sys
            lines, taking, block, sql = open(sys.argv[2], encoding='utf-8').read().splitlines(), False, False, []
            for line in lines:
                header = re.match(r'\\s*--\\s*changeset\\s+("[^"]+"|[^:]+):\\s*("[^"]+"|\\S+)', line, re.I)
                if block:
                    block = not re.match(r'.*\\*/\\s*$', line)
                elif header:
                    taking = header.group(2).strip('"') == sys.argv[1]
                elif re.match(r'\\s*/\\*\\s*liquibase\\s*rollback\\s*$', line, re.I):
                    block = True
                elif taking and not re.match(r'\\s*--\\s*rollback ', line, re.I) and not re.match(r'--\\s*(comment|validchecksum):? ', line, re.I):
                    sql.append(line)
            change = hashlib.md5(re.sub(r'[ \\t\\r\\n]', '', '\\n'.join(sql)).encode()).hexdigest()
            print('9:' + hashlib.md5(('9:' + change + ':').encode()).hexdigest())
            """
        let result = try ChildProcess.run(["/usr/bin/env", "python3", "-c", script, id, path])
        guard result.status == 0 else { throw FixtureError(message: "no Liquibase checksum for \(path): \(result.output)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// atlas.sum for a folder, as Atlas's `migrate.NewHashFile` writes it: its `.sql` files
    /// in byte-wise order of their names, each with the base64 SHA-256 of every name and
    /// file so far, and first the base64 SHA-256 of every name and hash. Computed by
    /// Python, apart from MigrationKit's own.
    public static func atlasSum(of folder: String) throws -> String {
        let script = """
            import base64, hashlib, os, sys
            chain, entries = hashlib.sha256(), []
            for name in sorted((n for n in os.listdir(sys.argv[1]) if n.endswith('.sql')), key=lambda n: n.encode()):
                chain.update(name.encode())
                chain.update(open(os.path.join(sys.argv[1], name), 'rb').read())
                entries.append((name, base64.b64encode(chain.copy().digest()).decode()))
            total = hashlib.sha256(b''.join(n.encode() + h.encode() for n, h in entries))
            sys.stdout.write('h1:' + base64.b64encode(total.digest()).decode() + '\\n' + ''.join(n + ' h1:' + h + '\\n' for n, h in entries))
            """
        let result = try ChildProcess.run(["/usr/bin/env", "python3", "-c", script, folder])
        guard result.status == 0 else { throw FixtureError(message: "no atlas.sum for \(folder): \(result.output)") }
        return result.stdout
    }

    /// SHA-384 of a file's bytes, as coreutils' `sha384sum` gives it.
    public static func sha384(_ path: String) throws -> String {
        let result = try ChildProcess.run(["/usr/bin/sha384sum", path])
        return String(result.stdout.prefix { $0 != " " })
    }

    /// Flyway's checksum of a script: the CRC32 of its bytes without line endings, as
    /// Java's signed `int`; the CRC32 is gzip's (its trailer's first four bytes).
    public static func flywayChecksum(_ path: String) throws -> Int32 {
        let result = try ChildProcess.run(["/bin/sh", "-c", "tr -d '\\r\\n' < \"$0\" | gzip -c | tail -c8 | head -c4 | od -An -tu4", path])
        guard let value = UInt32(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw FixtureError(message: "no CRC32 for \(path): \(result.output)")
        }
        return Int32(bitPattern: value)
    }

    /// Runs `sql` on the fixture's database with the `sqlcipher` shell (its rows, `|`
    /// between columns, one per line).
    public func query(_ workspace: Workspace, _ sql: String, encrypted: Bool = true) throws -> [String] {
        let result = try SQLCipherShell.run(database, keyPragma: encrypted ? workspace.key.pragma : nil, sql)
        guard result.status == 0 else { throw FixtureError(message: result.stderr) }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    public struct FixtureError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
