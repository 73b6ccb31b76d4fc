import Foundation
@testable import MigrationKitCLI
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct MigrateCommandTests {
    /// An app's process keeps the SIGPIPE handling the app chose: only a command line
    /// that is the process's `main()` ignores it (MigrateCommandTests in the process
    /// tests pins that one).
    @Test func aRunInsideAnAppLeavesItsSIGPIPEHandlingAlone() throws {
        // The test helpers' own `SIG_IGN`, set once on first use, comes before the look.
        try ChildProcess.run(["/bin/true"])
        let appsOwn: @convention(c) (Int32) -> Void = { _ in }
        let previous = signal(SIGPIPE, appsOwn)
        defer { signal(SIGPIPE, previous) }
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        var now = sigaction()
        sigaction(SIGPIPE, nil, &now)
        #expect(unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(appsOwn, to: Int.self))
    }

    @Test func migrateAppliesBothFileFormsThenStatusShowsThemApplied() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let before = try workspace.run("status")
        #expect(before.status == 0, "\(before.output)")
        #expect(before.stdout.contains("pending  0001_authors"))
        #expect(before.stdout.contains("pending  0002_books"))

        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(migrate.stdout.contains("Applied 0001_authors ("))
        #expect(migrate.stdout.contains("Applied 0002_books ("))
        #expect(migrate.stdout.contains("Applied 2 migrations in"))
        #expect(migrate.stdout.contains("verification passed"))

        let after = try workspace.run("status")
        #expect(after.stdout.contains("applied  0001_authors"))
        #expect(after.stdout.contains("applied  0002_books"))
        #expect(after.stdout.contains("2 applied, 0 pending."))

        let again = try workspace.run("migrate")
        #expect(again.status == 0)
        #expect(again.stdout.contains("Already up to date"))
    }

    @Test func theDatabaseIsEncryptedPrivateAndOpensInTheShell() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        let header = try #require(workspace.bytes(workspace.database)).prefix(16)
        #expect(header != Data("SQLite format 3\0".utf8))
        let mode = (try FileManager.default.attributesOfItem(atPath: workspace.database)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let shell = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT identifier FROM grdb_migrations ORDER BY identifier;")
        #expect(shell.stdout == "0001_authors\n0002_books\n")
    }

    @Test func toStopsAtATargetAndRollbackGoesBack() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let partial = try workspace.run("migrate", ["--to", "0001_authors"])
        #expect(partial.status == 0, "\(partial.output)")
        #expect(!partial.stdout.contains("0002_books"))
        #expect(try workspace.run("migrate").status == 0)

        let rollback = try workspace.run("rollback")
        #expect(rollback.status == 0, "\(rollback.output)")
        #expect(rollback.stdout.contains("Rolled back 0002_books ("))
        let status = try workspace.run("status")
        #expect(status.stdout.contains("pending  0002_books"))
        #expect(status.stdout.contains("applied  0001_authors"))

        #expect(try workspace.run("migrate").status == 0)
        let twoSteps = try workspace.run("rollback", ["--steps", "2"])
        #expect(twoSteps.status == 0)
        #expect(twoSteps.stdout.contains("Rolled back 2 migrations"))
        #expect(try workspace.run("migrate").status == 0)
        let toTarget = try workspace.run("rollback", ["--to", "0001_authors"])
        #expect(toTarget.stdout.contains("Rolled back 0002_books"))
        #expect(!toTarget.stdout.contains("Rolled back 0001_authors"))
    }

    @Test func rollbackRefusesAStepWithoutDownByName() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_one_way.up.sql", "CREATE TABLE one_way (a);")
        #expect(try workspace.run("migrate").status == 0)
        let before = workspace.bytes(workspace.database)
        let rollback = try workspace.run("rollback")
        #expect(rollback.exitCode == .refused)
        #expect(rollback.stderr.contains("\"0001_one_way\" has no rollback"))
        #expect(workspace.bytes(workspace.database) == before)
    }

    @Test func aFailingStatementIsReportedAsFileAndLine() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_broken.sql", """
            -- migrate:up
            CREATE TABLE ok (a);
            INSERT INTO missing VALUES (1);
            """)
        let result = try workspace.run("migrate")
        #expect(result.exitCode == .migrationFailed, "\(result.output)")
        #expect(result.stderr.contains("0003_broken.sql:3: Migration \"0003_broken\" failed and was rolled back: no such table: missing"))
        #expect(result.stdout.contains("Applied 0002_books"))
        let status = try workspace.run("status")
        #expect(status.stdout.contains("pending  0003_broken"))
    }

    /// SQLite says where it stopped parsing; lint asks it before anything runs, and a
    /// failure names that line, not the statement's first.
    @Test func aSyntaxErrorIsFoundByLintAtTheLineSQLitePointsAt() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_typo.sql", """
            -- migrate:up
            CREATE TABLE genres (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
            );
            -- migrate:down
            DROP TABLE genres;
            """)
        let lint = try Tool.run(["lint", "--migrations", workspace.migrations])
        #expect(lint.exitCode == .migrationFailed, "\(lint.output)")
        #expect(lint.stdout.contains("0003_typo.sql:5: error[syntax-error]: SQLite cannot parse this statement: near \")\": syntax error."), "\(lint.output)")
        // Blocked before anything runs, as any lint error is; without lint, the step
        // fails at the same line.
        let blocked = try workspace.run("migrate")
        #expect(blocked.exitCode == .migrationFailed && blocked.stderr.contains("0003_typo.sql:5: error[syntax-error]")
                && blocked.stderr.contains("the first at \(workspace.migrations)/0003_typo.sql:5 (syntax-error)"), "\(blocked.output)")
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
        let unlinted = try workspace.run("migrate", ["--no-lint"])
        #expect(unlinted.exitCode == .migrationFailed, "\(unlinted.output)")
        #expect(unlinted.stderr.contains("0003_typo.sql:5: Migration \"0003_typo\" failed and was rolled back: near \")\": syntax error"), "\(unlinted.output)")
        // What needs a table is not lint's to judge (an earlier statement may make it)...
        try workspace.migration("0003_typo.sql", "-- migrate:up\nINSERT INTO made_by_0004 VALUES (1);\n-- migrate:down\nSELECT 1;\n")
        #expect(try Tool.run(["lint", "--migrations", workspace.migrations]).status == 0)
        // ...but a missing table does not hide a syntax error behind it: SQLite looks up a
        // trigger's table before it reads the body, and an added column's before the column.
        try workspace.migration("0003_typo.sql", """
            -- migrate:up
            CREATE TABLE reviews (id INTEGER PRIMARY KEY, bookId INTEGER);
            CREATE TRIGGER reviews_touch AFTER INSERT ON reviews BEGIN
                UPDATE books SET title = title WHERE id = new.bookId
            END;
            """)
        try workspace.migration("0004_stars.sql", "-- migrate:up\nALTER TABLE reviews ADD COLUMN stars INTEGER CHECK (stars BETWEEN 0 AND 5;\n")
        let hidden = try Tool.run(["lint", "--migrations", workspace.migrations])
        #expect(hidden.exitCode == .migrationFailed, "\(hidden.output)")
        #expect(hidden.stdout.contains("0003_typo.sql:5: error[syntax-error]") && hidden.stdout.contains("0004_stars.sql:2: error[syntax-error]"), "\(hidden.output)")
    }

    @Test func aPendingFileThatSortsBeforeTheLatestAppliedIsRefused() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_a.sql", "-- migrate:up\nCREATE TABLE a (x);")
        try workspace.migration("0003_c.sql", "-- migrate:up\nCREATE TABLE c (x);")
        #expect(try workspace.run("migrate").status == 0)
        try workspace.migration("0002_b.sql", "-- migrate:up\nCREATE TABLE b (x);")
        let before = workspace.bytes(workspace.database)
        let refused = try workspace.run("migrate")
        #expect(refused.exitCode == .refused)
        #expect(refused.stderr.contains("\"0002_b\""))
        #expect(refused.stderr.contains("--allow-out-of-order"))
        #expect(workspace.bytes(workspace.database) == before)
        let allowed = try workspace.run("migrate", ["--allow-out-of-order"])
        #expect(allowed.status == 0)
        #expect(allowed.stdout.contains("Applied 0002_b"))
    }

    @Test func statusExitCodeSignalsPendingMigrations() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate", ["--to", "0001_authors"]).status == 0)
        #expect(try workspace.run("status", ["--exit-code"]).exitCode == .pendingMigrations)
        #expect(try workspace.run("status").status == 0)
        #expect(try workspace.run("migrate").status == 0)
        #expect(try workspace.run("status", ["--exit-code"]).status == 0)
    }

    @Test func statusShowsAppliedMigrationsWithoutFiles() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_books.up.sql")
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_books.down.sql")
        let status = try workspace.run("status")
        #expect(status.stdout.contains("unknown  0002_books"))
        let migrate = try workspace.run("migrate")
        #expect(migrate.exitCode == .refused)
        #expect(migrate.stderr.contains("migrated by a newer version"))
    }

    /// A newer version's database: `migrate` names the migration it does not have and
    /// `--accept-unknown`, which migrates it all the same, leaving that one as it is;
    /// `rollback`, which has no such option, says to use the newer version. Neither
    /// says to restore a backup, nor changes the file when it refuses.
    @Test func aNewerVersionsDatabaseIsMigratedOnlyWithItsUnknownMigrationsAccepted() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_books.up.sql")
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0002_books.down.sql")
        try workspace.migration("0003_tags.sql", "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n")
        let before = try #require(workspace.bytes(workspace.database))

        let refused = try workspace.run("migrate")
        #expect(refused.exitCode == .refused, "\(refused.output)")
        #expect(refused.stderr.hasSuffix("it has applied \"0002_books\", which is not among the known migrations; use the newer version, or "
            + "if this version may migrate the database all the same, accept it with --accept-unknown 0002_books.\n"), "\(refused.output)")
        let rollback = try workspace.run("rollback")
        #expect(rollback.exitCode == .refused, "\(rollback.output)")
        #expect(rollback.stderr.hasSuffix("not among the known migrations; use the newer version.\n"), "\(rollback.output)")
        #expect(!(refused.stderr + rollback.stderr).contains("backup"))
        #expect(workspace.bytes(workspace.database) == before)

        let accepted = try workspace.run("migrate", ["--accept-unknown", "0002_books"])
        #expect(accepted.status == 0 && accepted.stdout.contains("Applied 0003_tags ("), "\(accepted.output)")
        #expect(try workspace.run("status").stdout.contains("unknown  0002_books"))
    }

    @Test func jsonOutputIsParseableWithStableFields() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let migrate = try workspace.run("migrate", ["--json"])
        #expect(migrate.status == 0)
        let migrated = try decodeJSON(migrate.stdout)
        let applied = try #require(migrated["applied"] as? [[String: Any]])
        #expect(applied.map { $0["identifier"] as? String } == ["0001_authors", "0002_books"])
        #expect(applied.allSatisfy { $0["durationMs"] is Int })
        #expect(migrated["verification"] as? String == "passed")

        let status = try decodeJSON(try workspace.run("status", ["--json"]).stdout)
        let migrations = try #require(status["migrations"] as? [[String: Any]])
        #expect(migrations.map { $0["state"] as? String } == ["applied", "applied"])
        #expect(status["pendingCount"] as? Int == 0)
        #expect((status["sqlcipherVersion"] as? String)?.isEmpty == false)

        let verify = try decodeJSON(try workspace.run("verify", ["--json"]).stdout)
        #expect(verify["passed"] as? Bool == true)

        // Errors are JSON too, on standard output, with the exit code.
        try workspace.write("wrong-key", "not the key\n", mode: 0o600)
        let failed = try Tool.run(["status", "--json", "--db-path", workspace.database, "--password-file", workspace.path("wrong-key"), "--migrations", workspace.migrations])
        #expect(failed.exitCode == .wrongKeyOrNotADatabase)
        let error = try #require(try decodeJSON(failed.stdout)["error"] as? [String: Any])
        #expect(error["kind"] as? String == "wrongKey")
        #expect(error["exitCode"] as? Int == 4)
    }

    @Test func verifyReportsAMissingRequiredIndex() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        #expect(try workspace.run("migrate").status == 0)
        let ok = try workspace.run("verify", ["--require-index", "books:books_authorId"])
        #expect(ok.status == 0, "\(ok.output)")
        #expect(ok.stdout.contains("ok     index books:books_authorId: present"))
        let missing = try workspace.run("verify", ["--require-index", "books:books_title"])
        #expect(missing.exitCode == .verificationFailed)
        #expect(missing.stdout.contains("FAILED index books:books_title"))
        let badSpec = try workspace.run("verify", ["--require-index", "books"])
        #expect(badSpec.exitCode == .usage)
    }

    @Test func schemaDumpIsCanonicalAndWritesPrivateFiles() throws {
        let first = try Workspace()
        try first.migration("0001_x.sql", "-- migrate:up\nCREATE TABLE b (y);\nCREATE TABLE a (x);\nCREATE INDEX a_x ON a(x);")
        let second = try Workspace()
        try second.migration("0001_x.sql", "-- migrate:up\nCREATE TABLE a (x);\nCREATE INDEX a_x ON a(x);\nCREATE TABLE b (y);")
        #expect(try first.run("migrate").status == 0)
        #expect(try second.run("migrate").status == 0)
        let one = try first.run("schema-dump")
        let two = try second.run("schema-dump")
        #expect(one.status == 0)
        #expect(one.stdout == two.stdout)
        #expect(one.stdout == "CREATE TABLE a (x);\nCREATE TABLE b (y);\nCREATE INDEX a_x ON a (x);\n")
        #expect(!one.stdout.contains("grdb_migrations"))

        let output = first.path("schema.sql")
        #expect(try first.run("schema-dump", ["--output", output]).status == 0)
        #expect(FileManager.default.contents(atPath: output) == Data(one.stdout.utf8))
        let mode = (try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
    }

    @Test func newCreatesTheNextNumberedFileWithBothSections() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let result = try Tool.run(["new", "Add genre!", "--migrations", workspace.migrations])
        #expect(result.status == 0, "\(result.output)")
        let path = workspace.migrations + "/0003_add_genre.sql"
        #expect(result.stdout.contains(path))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("-- migrate:up") && text.contains("-- migrate:down"))
        let again = try Tool.run(["new", "add genre", "--migrations", workspace.migrations])
        #expect(again.stdout.contains("0004_add_genre.sql"))
        // An empty up section is an error when loading: the new file must be filled in.
        let migrate = try workspace.run("migrate")
        #expect(migrate.exitCode == .fileError)
        #expect(migrate.stderr.contains("0003_add_genre.sql"))
    }

    @Test func helpListsEveryCommandAndVersionPrints() throws {
        let help = try Tool.run(["--help"])
        #expect(help.status == 0)
        for command in ["migrate", "status", "rollback", "verify", "schema-dump", "new"] {
            #expect(help.stdout.contains(command), "\(command)")
        }
        #expect(help.stdout.contains("Exit codes"))
        let migrateHelp = try Tool.run(["migrate", "--help"])
        #expect(migrateHelp.stdout.contains("--password-file"))
        #expect(migrateHelp.stdout.contains("process list"))
        // The first line is what scripts and the Debian package read; the second says
        // which SQLCipher the binary runs on, as the library itself reports it.
        let version = try Tool.run(["--version"])
        #expect(version.status == 0)
        let lines = version.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "migrationkit \(MigrationKitVersion.current)")
        #expect(lines.count == 2 && lines[1] == "SQLCipher \(SQLCipherLibrary.cipherVersionString ?? "?"), SQLite \(SQLCipherLibrary.sqliteVersion)")
        // Wherever --version is given, the same report (ArgumentParser alone would print
        // the bare version number there).
        for arguments in [["migrate", "--version"], ["--version", "--json"], ["key", "--version"]] {
            let elsewhere = try Tool.run(arguments)
            #expect(elsewhere.status == 0 && elsewhere.stdout == version.stdout, "\(arguments): \(elsewhere.output)")
        }
    }
}
