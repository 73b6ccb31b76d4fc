import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// A folder of migrations written for another tool is read as it is, in that tool's
/// layout (docs/migration-layouts.md): found from its files, or named with `--layout`.
/// The fixtures here are written from each tool's documented format.
@Suite struct FolderLayoutTests {
    /// One layout's folder: its files (a path under the migrations folder, with `/` for
    /// diesel's folders), and what the ledger records.
    struct Fixture: CustomTestStringConvertible, Sendable {
        let layout: String
        let files: [(name: String, text: String)]
        let identifiers: [String]
        /// Whether its latest migration has a down to roll back.
        let rollsBack: Bool
        var testDescription: String { layout }
    }

    static let users = "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    static let posts = "CREATE TABLE posts (id INTEGER PRIMARY KEY, userId INTEGER NOT NULL REFERENCES users(id), title TEXT);\nCREATE INDEX posts_userId ON posts(userId);"

    static let fixtures: [Fixture] = [
        Fixture(layout: "migrationkit", files: [
            ("20240101000000_create_users.sql", "-- migrate:up\n\(users)\n-- migrate:down\nDROP TABLE users;\n"),
            ("20240102000000_add_posts.sql", "-- migrate:up\n\(posts)\n\n-- migrate:down\nDROP TABLE posts;\n"),
        ], identifiers: ["20240101000000_create_users", "20240102000000_add_posts"], rollsBack: true),
        Fixture(layout: "sqlx", files: [
            ("20240101000000_create_users.sql", "-- Add migration script here\n\(users)\n"),
            ("20240102000000_add_posts.up.sql", "\(posts)\n"),
            ("20240102000000_add_posts.down.sql", "DROP TABLE posts;\n"),
        ], identifiers: ["20240101000000_create_users", "20240102000000_add_posts"], rollsBack: true),
        Fixture(layout: "golang-migrate", files: [
            ("000001_create_users.up.sql", "\(users)\n"),
            ("000001_create_users.down.sql", "DROP TABLE IF EXISTS users;\n"),
            ("000002_add_posts.up.sql", "\(posts)\n"),
            // Paired by number, whatever its title.
            ("000002_drop_posts.down.sql", "DROP TABLE IF EXISTS posts;\n"),
        ], identifiers: ["000001_create_users", "000002_add_posts"], rollsBack: true),
        Fixture(layout: "goose", files: [
            ("00001_create_users.sql", "-- +goose Up\n-- +goose StatementBegin\n\(users)\n-- +goose StatementEnd\n\n-- +goose Down\nDROP TABLE users;\n"),
            ("00002_add_posts.sql", "-- +goose up\n\(posts)\n-- +goose down\nDROP TABLE posts;\n"),
        ], identifiers: ["00001_create_users", "00002_add_posts"], rollsBack: true),
        Fixture(layout: "flyway", files: [
            ("V1__create_users.sql", "\(users)\n"),
            ("U1__create_users.sql", "DROP TABLE users;\n"),
            ("V1.1__add_posts.sql", "\(posts)\n"),
            ("U1.1__add_posts.sql", "DROP TABLE posts;\n"),
        ], identifiers: ["V1__create_users", "V1.1__add_posts"], rollsBack: true),
        Fixture(layout: "diesel", files: [
            ("00000000000000_diesel_initial_setup/up.sql", "-- This file was automatically created by Diesel to setup helper functions\n-- and other internal bookkeeping.\n"),
            ("00000000000000_diesel_initial_setup/down.sql", "-- This file should undo anything in `up.sql`\n"),
            ("2024-06-05-131359_create_users/up.sql", "-- Your SQL goes here\n\(users)\n"),
            ("2024-06-05-131359_create_users/down.sql", "-- This file should undo anything in `up.sql`\nDROP TABLE users;\n"),
            ("2024-06-06-101010_add_posts/up.sql", "\(posts)\n"),
            ("2024-06-06-101010_add_posts/down.sql", "DROP TABLE posts;\n"),
        ], identifiers: ["00000000000000_diesel_initial_setup", "2024-06-05-131359_create_users", "2024-06-06-101010_add_posts"], rollsBack: true),
    ]

    private static func write(_ files: [(name: String, text: String)], in workspace: Workspace) throws {
        for file in files {
            let path = workspace.migrations + "/" + file.name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(file.text.utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    private static func ledger(_ workspace: Workspace) throws -> [String] {
        let result = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT identifier FROM grdb_migrations ORDER BY rowid;")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// Each layout's folder, as it is, migrates a new encrypted database (which the
    /// `sqlcipher` shell then reads with the key), records its files' names, is shown
    /// by `status`, rolls back, and passes `check`; the folder is left byte for byte as
    /// it was.
    @Test(arguments: fixtures)
    func eachLayoutMigratesAsItIsAndRoundTrips(_ fixture: Fixture) throws {
        let workspace = try Workspace()
        try Self.write(fixture.files, in: workspace)
        let folder = try TreeSnapshot(workspace.migrations)

        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied \(fixture.identifiers.count) migrations"), "\(migrate.output)")
        #expect(try Self.ledger(workspace) == fixture.identifiers)
        let tables = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT name FROM sqlite_master WHERE name IN ('users', 'posts') ORDER BY name;")
        #expect(tables.stdout == "posts\nusers\n", "\(tables)")

        let status = try workspace.run("status", ["--exit-code"])
        #expect(status.status == 0, "\(status.output)")
        #expect(status.stdout.contains("  migrations: \(workspace.migrations), \(fixture.layout) layout (detected from its files)\n"), "\(status.stdout)")
        let json = try decodeJSON(try workspace.run("status", ["--json"]).stdout)
        #expect(json["layout"] as? String == fixture.layout)

        if fixture.rollsBack {
            let rollback = try workspace.run("rollback")
            #expect(rollback.status == 0 && rollback.stdout.contains("Rolled back \(fixture.identifiers.last!)"), "\(rollback.output)")
            #expect(try Self.ledger(workspace) == Array(fixture.identifiers.dropLast()))
            let again = try workspace.run("migrate")
            #expect(again.status == 0 && again.stdout.contains("Applied \(fixture.identifiers.last!)"), "\(again.output)")
        }
        let check = try Tool.run(["check", "--migrations", workspace.migrations])
        #expect(check.status == 0 && check.stdout.contains("checks passed"), "\(check.output)")
        #expect(check.stdout.contains("ok     round trip \(fixture.identifiers.last!): up, down and up again give the same schemas"), "\(check.stdout)")
        try expectUnchanged(folder, "\(fixture.layout)'s folder")
    }

    /// `--layout` (or `migrations-layout`, or its variable) names the layout, and
    /// `status` says where it came from; a name no tool has is a usage error.
    @Test func theLayoutNamedIsTheOneReadAndStatusSaysWhoNamedIt() throws {
        let workspace = try Workspace()
        // Plain numbered files: sqlx's up-only migrations unless the layout is named.
        try workspace.migration("1_a.sql", "CREATE TABLE a (x);\n")
        let detected = try workspace.run("status")
        #expect(detected.stdout.contains("  migrations: \(workspace.migrations), sqlx layout (detected from its files)"), "\(detected.output)")

        let named = try workspace.run("status", ["--layout", "dbmate"])
        #expect(named.exitCode == .fileError, "\(named.output)")
        #expect(named.stderr.contains("\(workspace.migrations)/1_a.sql: No `-- migrate:up` line"), "\(named.stderr)")

        try workspace.write("migrationkit.toml", "migrations = \"Migrations\"\nmigrations-layout = \"sqlx\"\n")
        let fromFile = try Tool.run(["status", "--db-path", workspace.database], directory: workspace.root)
        #expect(fromFile.stdout.contains("sqlx layout (migrations-layout in \(workspace.root)/migrationkit.toml:2)"), "\(fromFile.output)")
        let fromEnvironment = try Tool.run(["status", "--db-path", workspace.database],
                                           environment: Tool.environment(["MIGRATIONKIT_MIGRATIONS_LAYOUT": "sqlx"]), directory: workspace.root)
        #expect(fromEnvironment.stdout.contains("sqlx layout (MIGRATIONKIT_MIGRATIONS_LAYOUT)"), "\(fromEnvironment.output)")
        let fromFlag = try workspace.run("status", ["--layout", "sqlx"])
        #expect(fromFlag.stdout.contains("sqlx layout (--layout)"), "\(fromFlag.output)")

        let unknown = try workspace.run("status", ["--layout", "rails"])
        #expect(unknown.exitCode == .usage && unknown.stderr.contains("rails"), "\(unknown.output)")
        try workspace.write("migrationkit.toml", "migrations = \"Migrations\"\nmigrations-layout = \"rails\"\n")
        let badFile = try Tool.run(["status", "--db-path", workspace.database], directory: workspace.root)
        #expect(badFile.exitCode == .usage && badFile.stderr.contains("`migrations-layout` must be one of migrationkit, sqlx, golang-migrate, goose, flyway, diesel, prisma, drizzle, refinery, sql-migrate, sqldelight, liquibase, atlas, yoyo, dbmate, not \"rails\""),
                "\(badFile.output)")
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
    }

    /// Flyway's versions compare part by part, as numbers: `1.2.10` after `1.2.9`,
    /// `1.10` after both, `1_11` (underscores separate parts too) after that.
    @Test func flywayVersionsApplyPartByPart() throws {
        let workspace = try Workspace()
        let names = ["V1.2.9__a", "V1.2.10__b", "V1.10__c", "V1_11__d", "V2__e"]
        for (index, name) in names.enumerated() { try workspace.migration(name + ".sql", "CREATE TABLE t\(index) (x);\n") }
        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(try Self.ledger(workspace) == names)
        let status = try workspace.run("status")
        #expect(status.stdout.contains(names.map { "applied  \($0)" }.joined(separator: "\n")), "\(status.stdout)")
        // A database that applied up to 1.2.10 gets the rest, in order.
        let partial = try Workspace()
        for (index, name) in names.enumerated() { try partial.migration(name + ".sql", "CREATE TABLE t\(index) (x);\n") }
        #expect(try partial.run("migrate", ["--to", "V1.2.10__b"]).status == 0)
        #expect(try Self.ledger(partial) == Array(names.prefix(2)))
    }

    /// A golang-migrate folder written for `x-no-tx-wrap`: every file wraps its
    /// statements in its own transaction, with foreign keys off around it (here the
    /// 12-step rebuild of a referenced table). `lint` finds notes only; the files
    /// migrate, keep their foreign keys checked, and roll back; a `BEGIN` inside a
    /// file, not around it, stays an error.
    @Test func aNoTxWrapFolderLintsWithNotesOnlyAndMigrates() throws {
        let workspace = try Workspace()
        func wrapped(_ body: String) -> String {
            "PRAGMA foreign_keys=off;\nBEGIN TRANSACTION;\n\(body)\nCOMMIT;\nPRAGMA foreign_keys=on;\n"
        }
        try workspace.migration("1_users.up.sql", wrapped("\(Self.users)\n\(Self.posts)"))
        try workspace.migration("1_users.down.sql", wrapped("DROP TABLE posts;\nDROP TABLE users;"))
        try workspace.migration("2_rebuild_users.up.sql", wrapped("""
            CREATE TABLE new_users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT);
            INSERT INTO new_users (id, name) SELECT id, name FROM users;
            DROP TABLE users;
            ALTER TABLE new_users RENAME TO users;
            """))
        try workspace.migration("2_rebuild_users.down.sql", wrapped("""
            CREATE TABLE old_users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            INSERT INTO old_users (id, name) SELECT id, name FROM users;
            DROP TABLE users;
            ALTER TABLE old_users RENAME TO users;
            """))
        let lint = try Tool.run(["lint", "--migrations", workspace.migrations, "--json"])
        #expect(lint.status == 0, "\(lint.output)")
        let document = try decodeJSON(lint.stdout)
        let findings = try #require(document["findings"] as? [[String: Any]])
        #expect(findings.count == 4 && findings.allSatisfy { $0["severity"] as? String == "note" && $0["rule"] as? String == "transaction-control" }, "\(findings)")
        #expect(findings.allSatisfy { $0["line"] as? Int == 2 }, "\(findings)")
        #expect(document["errorCount"] as? Int == 0 && document["warningCount"] as? Int == 0 && document["noteCount"] as? Int == 4)
        let text = try Tool.run(["lint", "--migrations", workspace.migrations])
        #expect(text.stdout.contains("2_rebuild_users.up.sql:2: note[transaction-control]: The file's own transaction (BEGIN … COMMIT, and any PRAGMA foreign_keys around them: lines 1, 2, 7, 8) is left out")
                && text.stdout.hasSuffix("2 migrations checked: 0 errors, 0 warnings, 4 notes.\n"), "\(text.stdout)")

        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 2 migrations"), "\(migrate.output)")
        let schema = try SQLCipherShell.run(workspace.database, key: workspace.key, "PRAGMA foreign_key_check; SELECT sql FROM sqlite_master WHERE name = 'users';")
        #expect(schema.stdout == "CREATE TABLE \"users\" (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT)\n", "\(schema)")
        let rollback = try workspace.run("rollback", ["--steps", "2"])
        #expect(rollback.status == 0, "\(rollback.output)")
        let check = try Tool.run(["check", "--migrations", workspace.migrations])
        #expect(check.status == 0, "\(check.output)")

        // Anything else inside stays an error.
        try workspace.migration("3_inner.up.sql", "CREATE TABLE c (x);\nBEGIN;\nCREATE TABLE d (x);\nCOMMIT;\n")
        let inner = try Tool.run(["lint", "--migrations", workspace.migrations])
        #expect(inner.exitCode == .migrationFailed, "\(inner.output)")
        #expect(inner.stdout.contains("3_inner.up.sql:2: error[transaction-control]: BEGIN starts a transaction")
                && inner.stdout.contains("3_inner.up.sql:4: error[transaction-control]: COMMIT"), "\(inner.stdout)")
    }

    /// goose's `StatementBegin`/`StatementEnd` around a trigger, whose body holds `;`:
    /// the trigger is made whole and works; `NO TRANSACTION` is a note (the step runs in
    /// the runner's transaction), `ENVSUB ON` is refused.
    @Test func gooseStatementBlocksMakeATriggerAndNoTransactionIsANote() throws {
        let workspace = try Workspace()
        try workspace.migration("20240101000000_users.sql", """
            -- +goose Up
            \(Self.users)
            CREATE TABLE audit (userId INTEGER, name TEXT);
            -- +goose StatementBegin
            CREATE TRIGGER users_audit AFTER UPDATE OF name ON users
            BEGIN
                INSERT INTO audit (userId, name) VALUES (OLD.id, OLD.name);
            END;
            -- +goose StatementEnd

            -- +goose Down
            -- +goose StatementBegin
            DROP TRIGGER users_audit;
            -- +goose StatementEnd
            DROP TABLE audit;
            DROP TABLE users;

            """)
        try workspace.migration("20240102000000_index.sql", "-- +goose NO TRANSACTION\n-- +goose Up\nCREATE INDEX users_name ON users(name);\n-- +goose Down\nDROP INDEX users_name;\n")
        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(migrate.stderr.contains("20240102000000_index.sql:1: note[transaction-control]: The file asks to run outside a transaction; the runner runs it in its own transaction all the same"),
                "\(migrate.stderr)")
        let fired = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                           "INSERT INTO users VALUES (1, 'ada'); UPDATE users SET name = 'grace' WHERE id = 1; SELECT userId, name FROM audit;")
        #expect(fired.stdout == "1|ada\n", "\(fired)")
        let rollback = try workspace.run("rollback", ["--steps", "2"])
        #expect(rollback.status == 0, "\(rollback.output)")
        let gone = try SQLCipherShell.run(workspace.database, key: workspace.key,
                                          "SELECT count(*) FROM sqlite_master WHERE name IN ('users', 'audit', 'users_audit', 'users_name');")
        #expect(gone.stdout == "0\n", "\(gone)")

        try workspace.migration("20240103000000_env.sql", "-- +goose ENVSUB ON\n-- +goose Up\nCREATE TABLE ${TABLE} (x);\n")
        try workspace.migration("20240104000000_seed.go", "package migrations\n")
        try workspace.migration("embed.go", "package migrations\n")
        let before = try TreeSnapshot(workspace.root)
        let envsub = try workspace.run("migrate")
        #expect(envsub.exitCode == .fileError, "\(envsub.output)")
        #expect(envsub.stderr.contains("20240103000000_env.sql:1: `-- +goose ENVSUB ON` has goose put environment variables into the SQL"), "\(envsub.stderr)")
        #expect(envsub.stderr.contains("20240104000000_seed.go: goose runs this Go migration, and MigrationKit runs SQL migrations only"), "\(envsub.stderr)")
        #expect(!envsub.stderr.contains("embed.go"), "\(envsub.stderr)")
        try expectUnchanged(before, "migrate")
    }

    /// Every broken file of a folder is named in one run, one line each (exit 9),
    /// before anything is touched: a fix-one-rerun loop is one run.
    @Test func aFolderWithSeveralBrokenFilesReportsThemAllAtOnce() throws {
        let workspace = try Workspace()
        try workspace.migration("1_a.up.sql", "CREATE TABLE a (x);\n")
        try Data(Array("CREATE TABLE b (x);\n".utf8) + [0]).write(to: URL(fileURLWithPath: workspace.migrations + "/2_b.up.sql"))
        try Data([0x43, 0x52, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: workspace.migrations + "/3_c.up.sql"))
        try workspace.migration("4_d.down.sql", "DROP TABLE d;\n")
        try workspace.migration("5_e.up.sql", "CREATE TABLE e (x);\n")
        try workspace.migration("05_f.up.sql", "CREATE TABLE f (x);\n")
        let before = try TreeSnapshot(workspace.root)
        for command in ["migrate", "status", "lint"] {
            let result = try workspace.run(command)
            #expect(result.exitCode == .fileError, "\(command): \(result.output)")
            let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("migrationkit: error: ") }
            let expected = [
                "\(workspace.migrations)/2_b.up.sql:2: The file holds a NUL byte",
                "\(workspace.migrations)/3_c.up.sql:1: The file is not valid UTF-8",
                "\(workspace.migrations)/4_d.down.sql: This down file's version, 4, has no up file in golang-migrate's layout",
                "\(workspace.migrations)/5_e.up.sql: This file and \(workspace.migrations)/05_f.up.sql are both version 5 of golang-migrate's layout",
            ]
            #expect(lines.count == expected.count, "\(command): \(result.stderr)")
            for (line, start) in zip(lines, expected) {
                #expect(line.dropFirst("migrationkit: error: ".count).hasPrefix(start), "\(command): \(line)")
            }
            try expectUnchanged(before, command)
        }
        let json = try workspace.run("migrate", ["--json"])
        let error = try #require(try decodeJSON(json.stdout)["error"] as? [String: Any])
        #expect(error["exitCode"] as? Int == 9 && (error["message"] as? String)?.contains("4_d.down.sql: This down file's version") == true, "\(error)")
    }

    /// Files of two layouts in one folder are refused, naming one of each, before
    /// anything is touched; naming the layout reads the folder in it, and what does not
    /// fit it is refused file by file.
    @Test func aFolderMixingLayoutsIsRefusedNamingTwoFiles() throws {
        let workspace = try Workspace()
        try workspace.migration("20240101000000_users.sql", "-- +goose Up\n\(Self.users)\n-- +goose Down\nDROP TABLE users;\n")
        try workspace.migration("V2__posts.sql", "\(Self.posts)\n")
        let before = try TreeSnapshot(workspace.root)
        for command in ["migrate", "status", "lint", "new"] {
            let result = try workspace.run(command, command == "new" ? ["x"] : [])
            #expect(result.exitCode == .fileError, "\(command): \(result.output)")
            #expect(result.stderr.contains("\(workspace.migrations)/20240101000000_users.sql: This folder mixes migration layouts: this is goose's (a `-- +goose` line), and \(workspace.migrations)/V2__posts.sql is Flyway's (named V<version>__<description>.sql); keep one layout in a migrations folder"),
                    "\(command): \(result.stderr)")
            try expectUnchanged(before, command)
        }
        let named = try workspace.run("migrate", ["--layout", "flyway"])
        #expect(named.exitCode == .fileError, "\(named.output)")
        #expect(named.stderr.contains("\(workspace.migrations)/20240101000000_users.sql: This file is not named as Flyway's layout names migrations"), "\(named.stderr)")
        try expectUnchanged(before, "migrate --layout flyway")
    }

    /// What a Flyway folder holds that MigrationKit does not run is refused with a
    /// sentence: repeatable migrations, a placeholder with no value, two files of one
    /// version (`1` and `1.0`), an undo file without its migration.
    @Test func flywaysRepeatablesPlaceholdersAndDuplicateVersionsAreRefused() throws {
        let workspace = try Workspace()
        try workspace.migration("V1__users.sql", "\(Self.users)\n")
        try workspace.migration("V1.0__again.sql", "CREATE TABLE again (x);\n")
        try workspace.migration("R__views.sql", "CREATE VIEW v AS SELECT 1;\n")
        try workspace.migration("V2__named.sql", "CREATE TABLE ${table} (x);\n")
        try workspace.migration("U3__gone.sql", "DROP TABLE gone;\n")
        let result = try workspace.run("migrate")
        #expect(result.exitCode == .fileError, "\(result.output)")
        for expected in [
            "R__views.sql: Flyway runs a repeatable migration (R__) again whenever it changes",
            "U3__gone.sql: This down file's version, 3, has no up file in Flyway's layout",
            "V1__users.sql: This file and \(workspace.migrations)/V1.0__again.sql are both version 1 of Flyway's layout",
            "V2__named.sql:1: Flyway replaces `${table}` before it runs this file, and no value is given for it",
        ] {
            #expect(result.stderr.contains(expected), "\(expected): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
    }

    /// A section line of another layout than the folder's would run its down SQL with the
    /// up SQL, so it is refused; goose's `StatementBegin` needs its `StatementEnd`;
    /// diesel's `run_in_transaction = false`, dbmate's `transaction:false` and sqlx's
    /// `-- no-transaction` are notes, as goose's `NO TRANSACTION` is;
    /// in MigrationKit's own layout, every broken file is named in one run too.
    @Test func sectionLinesOfAnotherLayoutAndUnclosedStatementBlocksAreRefused() throws {
        let pairs = try Workspace()
        try pairs.migration("1_a.up.sql", "CREATE TABLE a (x);\n-- migrate:down\nDROP TABLE a;\n")
        let named = try pairs.run("migrate", ["--layout", "golang-migrate"])
        #expect(named.exitCode == .fileError, "\(named.output)")
        #expect(named.stderr.contains("1_a.up.sql:2: `-- migrate:down` is a line of MigrationKit's (dbmate's) layout, but this folder is read in golang-migrate's, where this file is all up SQL"),
                "\(named.stderr)")

        let flyway = try Workspace()
        try flyway.migration("V1__a.sql", "CREATE TABLE a (x);\n-- +goose Down\nDROP TABLE a;\n")
        let goose = try flyway.run("migrate", ["--layout", "flyway"])
        #expect(goose.exitCode == .fileError && goose.stderr.contains("V1__a.sql:2: `-- +goose Down` is a line of goose's layout, but this folder is read in Flyway's"),
                "\(goose.output)")

        let unclosed = try Workspace()
        try unclosed.migration("1_a.sql", "-- +goose Up\n-- +goose StatementBegin\nCREATE TABLE a (x);\n-- +goose Down\nDROP TABLE a;\n")
        let block = try unclosed.run("migrate")
        #expect(block.exitCode == .fileError && block.stderr.contains("1_a.sql:2: This `-- +goose StatementBegin` has no `-- +goose StatementEnd` after it"), "\(block.output)")

        let diesel = try Workspace()
        try Self.write([("2024-01-01-000000_a/up.sql", "CREATE TABLE a (x);\n"), ("2024-01-01-000000_a/down.sql", "DROP TABLE a;\n"),
                        ("2024-01-01-000000_a/metadata.toml", "# diesel's own\nrun_in_transaction = false\n")], in: diesel)
        let lint = try Tool.run(["lint", "--migrations", diesel.migrations])
        #expect(lint.status == 0 && lint.stdout.contains("2024-01-01-000000_a/metadata.toml:2: note[transaction-control]: The file asks to run outside a transaction"),
                "\(lint.output)")
        #expect(try diesel.run("migrate").status == 0)

        let dbmate = try Workspace()
        try dbmate.migration("20240101000000_a.sql", "-- migrate:up transaction:false\nCREATE TABLE a (x);\n-- migrate:down\nDROP TABLE a;\n")
        let dbmateLint = try Tool.run(["lint", "--migrations", dbmate.migrations])
        #expect(dbmateLint.status == 0 && dbmateLint.stdout.contains("20240101000000_a.sql:1: note[transaction-control]: The file asks to run outside a transaction"),
                "\(dbmateLint.output)")
        #expect(try dbmate.run("migrate").status == 0)

        let sqlx = try Workspace()
        try sqlx.migration("20240101000000_a.sql", "-- no-transaction\nCREATE TABLE a (x);\n")
        let sqlxLint = try Tool.run(["lint", "--migrations", sqlx.migrations])
        #expect(sqlxLint.status == 0 && sqlxLint.stdout.contains("20240101000000_a.sql:1: note[transaction-control]: The file asks to run outside a transaction"),
                "\(sqlxLint.output)")
        #expect(try sqlx.run("migrate").status == 0)

        let own = try Workspace()
        try own.migration("0001_a.sql", "-- migrate:up\nCREATE TABLE a (x);\n")
        try own.migration("0002_b.sql", "CREATE TABLE b (x);\n")
        try own.migration("0004_d.down.sql", "DROP TABLE d;\n")
        let both = try own.run("migrate")
        #expect(both.exitCode == .fileError, "\(both.output)")
        #expect(both.stderr.contains("""
            migrationkit: error: \(own.migrations)/0002_b.sql: No `-- migrate:up` line; start the migration's SQL with one (and optionally end with a `-- migrate:down` section).
            migrationkit: error: \(own.migrations)/0004_d.down.sql: There is no 0004_d.up.sql for this down file; add the up file, or put this down SQL beside the up SQL it undoes.
            """), "\(both.stderr)")
    }

    /// diesel refuses an `up.sql` with no bytes at all, and so does MigrationKit; a
    /// folder without `up.sql` is named.
    @Test func aDieselMigrationNeedsAnUpSQLWithText() throws {
        let workspace = try Workspace()
        try Self.write([("2024-01-01-000000_a/up.sql", ""), ("2024-01-01-000000_a/down.sql", "SELECT 1;\n"),
                        ("2024-01-02-000000_b/down.sql", "SELECT 1;\n")], in: workspace)
        let result = try workspace.run("migrate")
        #expect(result.exitCode == .fileError, "\(result.output)")
        #expect(result.stderr.contains("2024-01-01-000000_a/up.sql: This up.sql is empty, which diesel refuses")
                && result.stderr.contains("2024-01-02-000000_b: This folder has a down.sql but no up.sql"), "\(result.stderr)")
    }

    /// `new` writes the next migration in the folder's layout, numbered as that tool
    /// numbers it; the folder then reads in the same layout, with the new file last.
    @Test func newWritesTheNextFileInTheFoldersLayout() throws {
        let cases: [(files: [(name: String, text: String)], created: [String])] = [
            ([("00001_a.sql", "-- +goose Up\nSELECT 1;\n")], ["00002_add_x.sql"]),
            ([("V1.2.9__a.sql", "SELECT 1;\n"), ("V1.2.10__b.sql", "SELECT 1;\n")], ["V1.2.11__add_x.sql"]),
            ([("V1_09__a.sql", "SELECT 1;\n"), ("U1_09__a.sql", "SELECT 1;\n")], ["V1_10__add_x.sql", "U1_10__add_x.sql"]),
            ([("9_a.up.sql", "SELECT 1;\n"), ("9_a.down.sql", "SELECT 1;\n")], ["10_add_x.up.sql", "10_add_x.down.sql"]),
            ([("0009_a.sql", "SELECT 1;\n")], ["0010_add_x.sql"]),
        ]
        for testCase in cases {
            let workspace = try Workspace()
            try Self.write(testCase.files, in: workspace)
            let layout = try #require(try decodeJSON(workspace.run("status", ["--json"]).stdout)["layout"] as? String)
            let new = try workspace.run("new", ["add x", "--json"])
            #expect(new.status == 0, "\(new.output)")
            let files = try #require(try decodeJSON(new.stdout)["files"] as? [String])
            #expect(files == testCase.created.map { workspace.migrations + "/" + $0 }, "\(files)")
            // Until its up SQL is written, the new file is refused, not applied as a step
            // that changes nothing.
            let unwritten = try workspace.run("migrate")
            #expect(unwritten.exitCode == .fileError && unwritten.stderr.contains("\(testCase.created[0]):")
                    && unwritten.stderr.contains("The up section holds no SQL; write the migration's statements"), "\(unwritten.output)")
            // Written, it is read in the same layout, last.
            try Data((layout == "goose" ? "-- +goose Up\nSELECT 1;\n" : "SELECT 1;\n").utf8).write(to: URL(fileURLWithPath: files[0]))
            let after = try decodeJSON(workspace.run("status", ["--json"]).stdout)
            #expect(after["layout"] as? String == layout, "\(after)")
            let identifiers = (after["migrations"] as? [[String: Any]])?.compactMap { $0["identifier"] as? String }
            #expect(identifiers?.last.map { testCase.created[0].hasPrefix($0) } == true, "\(String(describing: identifiers))")
        }
        // diesel: a folder named with the time, as diesel names it.
        let diesel = try Workspace()
        try Self.write([("2024-06-05-131359_a/up.sql", "SELECT 1;\n")], in: diesel)
        let new = try diesel.run("new", ["add x", "--json"])
        let files = try #require(try decodeJSON(new.stdout)["files"] as? [String])
        let name = try #require(files.first.map { ($0 as NSString).deletingLastPathComponent.split(separator: "/").last.map(String.init) } ?? nil)
        #expect(files.map { ($0 as NSString).lastPathComponent } == ["up.sql", "down.sql"], "\(files)")
        #expect(name.count == "2026-11-28-093000_add_x".count && name.hasSuffix("_add_x") && Array(name)[4] == "-" && Array(name)[10] == "-", "\(name)")
        let unwritten = try diesel.run("migrate")
        #expect(unwritten.exitCode == .fileError && unwritten.stderr.contains("\(name)/up.sql: This up.sql is empty, which diesel refuses"), "\(unwritten.output)")
    }
}
