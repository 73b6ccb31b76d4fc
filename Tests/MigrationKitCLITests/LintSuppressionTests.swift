import Foundation
import MigrationKitCLITestSupport
import MigrationKitTestSupport
import Testing

/// Lint that fits a folder adopted from another tool, whose applied migrations must stay
/// as they are: a comment silences named rules for one statement
/// (`-- migrationkit:nolint`) or a whole file (`-- migrationkit:nolint-file`), and
/// migrationkit.toml's `[lint]` table silences them everywhere or by file pattern; a
/// suppression naming no rule that exists is itself reported; silenced findings are
/// listed by `--show-suppressed`, `--verbose` and `--json`. An error in down SQL stops
/// `rollback` of its migration and `check`, not `migrate`.
@Suite struct LintSuppressionTests {
    /// Two findings on one statement on any SQLite, judged against 3.15.2 (`--min-sqlite`):
    /// a non-constant DEFAULT (`non-constant-default`) that calls `iif()`, which 3.15.2
    /// lacks (`unsupported-sql`).
    private static func addColumn(_ table: String, _ column: String) -> String {
        "ALTER TABLE \(table) ADD COLUMN \(column) TEXT DEFAULT (iif(1, 'a', 'b'));"
    }

    private func lint(_ workspace: Workspace, _ extra: [String] = []) throws -> CommandResult {
        try Tool.run(["lint", "--migrations", workspace.migrations, "--min-sqlite", "3.15.2"] + extra, directory: workspace.root)
    }

    /// The findings of a `lint --json` document: (rule, file name, line), and for the
    /// suppressed ones where the suppression is.
    private func findings(_ document: [String: Any], _ key: String) -> [(rule: String, file: String, line: Int, by: String?)] {
        ((document[key] as? [[String: Any]]) ?? []).map { finding in
            (finding["rule"] as? String ?? "", ((finding["path"] as? String) ?? "").split(separator: "/").last.map(String.init) ?? "",
             finding["line"] as? Int ?? 0, finding["suppressedBy"] as? String)
        }
    }

    @Test func aCommentSilencesExactlyTheRulesItNamesOnItsStatementOrInItsFile() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_codes.sql", """
            -- migrate:up
            -- migrationkit:nolint unsupported-sql -- the column is filled by the app where iif() is missing
            \(Self.addColumn("books", "code"))
            \(Self.addColumn("authors", "code"))
            -- migrate:down
            SELECT 1;
            """)
        try workspace.migration("0004_born.sql", """
            -- Adopted from the old tool: applied everywhere, kept as it is.
            -- migrationkit:nolint-file non-constant-default
            -- migrate:up
            \(Self.addColumn("authors", "born"))
            -- migrate:down
            SELECT 1;
            """)
        let result = try lint(workspace)
        #expect(result.exitCode == .migrationFailed, "\(result.output)")
        let out = result.stdout
        // The statement's comment silences unsupported-sql there, and nothing else: the
        // statement's other rule and the next statement's findings stay.
        #expect(out.contains("0003_codes.sql:3: error[non-constant-default]") && !out.contains("0003_codes.sql:3: error[unsupported-sql]"), "\(out)")
        #expect(out.contains("0003_codes.sql:4: error[non-constant-default]") && out.contains("0003_codes.sql:4: error[unsupported-sql]"), "\(out)")
        // The file's comment, in the header above `-- migrate:up`, silences its rule in the whole file.
        #expect(out.contains("0004_born.sql:4: error[unsupported-sql]") && !out.contains("0004_born.sql:4: error[non-constant-default]"), "\(out)")
        // The advice fits a migration already applied: silence, not edit.
        #expect(out.contains("silence this with `-- migrationkit:nolint unsupported-sql` on the line above the statement"), "\(out)")
        #expect(out.contains("4 errors, 0 warnings (2 suppressed; --show-suppressed lists them)."), "\(out)")
        #expect(!out.contains("suppressed error["), "\(out)")

        let shown = try lint(workspace, ["--show-suppressed"])
        #expect(shown.stdout.contains("0003_codes.sql:3: suppressed error[unsupported-sql] by \(workspace.migrations)/0003_codes.sql:2: ")
                && shown.stdout.contains("0004_born.sql:4: suppressed error[non-constant-default] by \(workspace.migrations)/0004_born.sql:2: "), "\(shown.output)")

        let document = try decodeJSON(try lint(workspace, ["--json"]).stdout)
        let active = findings(document, "findings")
        let suppressed = findings(document, "suppressed")
        #expect(active.count == 4 && document["errorCount"] as? Int == 4, "\(document)")
        #expect(suppressed.map { "\($0.rule) \($0.file):\($0.line) by \($0.by ?? "-")" }.sorted() == [
            "non-constant-default 0004_born.sql:4 by \(workspace.migrations)/0004_born.sql:2",
            "unsupported-sql 0003_codes.sql:3 by \(workspace.migrations)/0003_codes.sql:2",
        ], "\(document)")
        #expect(!active.contains { $0.file == "0003_codes.sql" && $0.line == 3 && $0.rule == "unsupported-sql" })
    }

    @Test func theProjectFilesLintTableSilencesARuleEverywhereAndRulesByFilePattern() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_codes.sql", "-- migrate:up\n\(Self.addColumn("books", "code"))\n-- migrate:down\nSELECT 1;\n")
        try workspace.migration("0004_born.sql", "-- migrate:up\n\(Self.addColumn("authors", "born"))\n-- migrate:down\nSELECT 1;\n")
        try workspace.migration("0005_scratch.sql", """
            -- migrate:up
            CREATE TABLE scratch (a);
            INSERT INTO scratch VALUES (1);
            DROP TABLE scratch;
            -- migrate:down
            SELECT 1;
            """)
        try workspace.write("migrationkit.toml", """
            migrations = "Migrations"

            [lint]
            disable = ["non-constant-default", "drop-table-with-data"]

            [lint.files]
            "0004_*.sql" = ["unsupported-sql"]
            """, mode: 0o600)
        let toml = workspace.path("migrationkit.toml")
        let result = try Tool.run(["lint", "--min-sqlite", "3.15.2"], directory: workspace.root)
        #expect(result.exitCode == .migrationFailed, "\(result.output)")
        let out = result.stdout
        #expect(!out.contains("non-constant-default") && !out.contains("drop-table-with-data"), "\(out)")
        #expect(out.contains("0003_codes.sql:2: error[unsupported-sql]") && !out.contains("0004_born.sql:2: error[unsupported-sql]"), "\(out)")
        #expect(out.contains("1 error, 0 warnings (4 suppressed; --show-suppressed lists them)."), "\(out)")
        let document = try decodeJSON(try Tool.run(["lint", "--min-sqlite", "3.15.2", "--json"], directory: workspace.root).stdout)
        #expect(findings(document, "suppressed").map { "\($0.rule) \($0.file) by \($0.by ?? "-")" }.sorted() == [
            "drop-table-with-data 0005_scratch.sql by \(toml):4",
            "non-constant-default 0003_codes.sql by \(toml):4",
            "non-constant-default 0004_born.sql by \(toml):4",
            "unsupported-sql 0004_born.sql by \(toml):7",
        ], "\(document)")

        // `migrate` and `check` read the same table: the silenced warning is not printed
        // (`--verbose` says what silenced it), and check's lint counts it as suppressed.
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0003_codes.sql")
        try FileManager.default.removeItem(atPath: workspace.migrations + "/0004_born.sql")
        let migrate = try workspace.run("migrate", ["--no-backup", "--verbose"])
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(!migrate.stderr.contains(": warning[drop-table-with-data]")
                && migrate.stderr.contains("note: \(workspace.migrations)/0005_scratch.sql:4: suppressed warning[drop-table-with-data] by \(toml):4: "), "\(migrate.output)")
        let check = try Tool.run(["check", "--migrations", workspace.migrations], directory: workspace.root)
        #expect(check.status == 0 && check.stdout.contains("ok     lint: no errors (0 warnings, 1 suppressed)"), "\(check.output)")
    }

    @Test func aSuppressionThatSilencesNothingIsReported() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        try workspace.migration("0003_scratch.sql", """
            -- migrate:up
            CREATE TABLE scratch (a);
            INSERT INTO scratch VALUES (1);
            -- migrationkit:nolint drop-tabel-with-data
            DROP TABLE scratch;
            -- migrationkit:no-lint missing-down
            -- migrate:down
            CREATE TABLE scratch (a);
            -- migrationkit:nolint
            """)
        try workspace.write("migrationkit.toml", "migrations = \"Migrations\"\n\n[lint]\ndisable = [\"missing-dwon\"]\n", mode: 0o600)
        let result = try Tool.run(["lint"], directory: workspace.root)
        // Warnings: a file written for a newer MigrationKit, with rules this one lacks, still works.
        #expect(result.status == 0, "\(result.output)")
        let out = result.stdout
        let file = "\(workspace.migrations)/0003_scratch.sql"
        #expect(out.contains("\(file):4: warning[bad-suppression]: `-- migrationkit:nolint` names \"drop-tabel-with-data\", which is no lint rule, so it silences nothing."), "\(out)")
        // The misspelled rule silenced nothing.
        #expect(out.contains("\(file):5: warning[drop-table-with-data]"), "\(out)")
        #expect(out.contains("\(file):6: warning[bad-suppression]: `-- migrationkit:no-lint` is no lint comment"), "\(out)")
        #expect(out.contains("\(file):9: warning[bad-suppression]: `-- migrationkit:nolint` names no rule"), "\(out)")
        #expect(out.contains("\(workspace.path("migrationkit.toml")):4: warning[bad-suppression]: The [lint] settings name \"missing-dwon\", which is no lint rule"), "\(out)")
    }

    @Test func anErrorInDownSQLLetsMigrateApplyAndStopsRollbackAndCheck() throws {
        let workspace = try Workspace()
        try workspace.writeSampleMigrations()
        let up = "-- migrate:up\nCREATE TABLE genres (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n-- migrate:down\n"
        try workspace.migration("0003_genres.sql", up + "DROP TABEL genres;\n")
        let file = "\(workspace.migrations)/0003_genres.sql"

        let migrate = try workspace.run("migrate")
        #expect(migrate.status == 0 && migrate.stdout.contains("Applied 0003_genres ("), "\(migrate.output)")
        #expect(migrate.stderr.contains("\(file):4: warning[syntax-error]: SQLite cannot parse this statement")
                && migrate.stderr.contains("(An error in down SQL: it blocks `rollback` of this migration and `check`, not `migrate`.)"), "\(migrate.output)")
        let tables = try SQLCipherShell.run(workspace.database, key: workspace.key, "SELECT name FROM sqlite_master WHERE name = 'genres';")
        #expect(tables.stdout == "genres\n", "\(tables)")

        // Refused before anything changes: no backup, the database as it was.
        let before = try TreeSnapshot(workspace.root)
        let rollback = try workspace.run("rollback")
        #expect(rollback.exitCode == .migrationFailed, "\(rollback.output)")
        #expect(rollback.stderr.contains("\(file):4: error[syntax-error]")
                && rollback.stderr.contains("Lint found 1 error in the down SQL this rollback would run, the first at \(file):4 (syntax-error) (listed above); nothing was rolled back."), "\(rollback.output)")
        try expectUnchanged(before, "rollback")

        // Over several databases, each is refused alike, pointing at `lint` for the findings.
        let second = workspace.path("second.db")
        let migrateSecond = try Tool.run(["migrate", "--no-backup", "--db-path", second, "--password-file", workspace.keyFile,
                                          "--migrations", workspace.migrations], directory: workspace.root)
        #expect(migrateSecond.status == 0, "\(migrateSecond.output)")
        let fleetBefore = try TreeSnapshot(workspace.root)
        let fleet = try Tool.run(["rollback", "--to", "0002_books", "--db-path", workspace.database, "--db-path", second,
                                  "--password-file", workspace.keyFile, "--migrations", workspace.migrations], directory: workspace.root)
        #expect(fleet.exitCode == .migrationFailed && !fleet.stderr.contains("error[syntax-error]")
                && fleet.output.components(separatedBy: "See them with `migrationkit lint --migrations \(workspace.migrations)`").count == 3, "\(fleet.output)")
        try expectUnchanged(fleetBefore, "rollback of two databases")

        let check = try Tool.run(["check", "--migrations", workspace.migrations])
        #expect(check.exitCode == .migrationFailed && check.stdout.contains("FAILED lint: \(file):4: error[syntax-error]"), "\(check.output)")

        // Down SQL is no part of the checksum: fixing it leaves the migration applied, not
        // modified, and the rollback runs.
        try workspace.migration("0003_genres.sql", up + "DROP TABLE genres;\n")
        let status = try workspace.run("status")
        #expect(status.stdout.contains("applied  0003_genres"), "\(status.output)")
        let fixed = try workspace.run("rollback", ["--no-backup"])
        #expect(fixed.status == 0 && fixed.stdout.contains("Rolled back 0003_genres ("), "\(fixed.output)")
    }
}
