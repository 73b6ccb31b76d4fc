import Foundation
@testable import MigrationKit
import MigrationKitCLITestSupport
@testable import MigrationKitSQLCipher
import MigrationKitTestSupport
import Testing

/// Examples/ModernMigrations — a STRICT table, an FTS5 index kept by triggers, DROP
/// COLUMN, a JSON column — runs on SQLCipher 4.6.1; on Debian 12's 3.4.1, and on 4.6.1
/// with `--min-sqlite 3.15.2`, lint reports each of them instead.
@Suite struct ModernSQLTests {
    private let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/ModernMigrations").path
    private var isFour: Bool { (SQLCipherLibrary.cipherVersion?.major ?? 0) >= 4 }

    /// The findings lint prints, as "file:rule" pairs.
    private func reported(_ result: CommandResult) -> Set<String> {
        Set(result.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let file = line.split(separator: "/").last?.split(separator: ":").first,
                  let rule = line.range(of: #"(error|warning)\[[a-z-]+\]"#, options: .regularExpression) else { return nil }
            return "\(file):\(line[rule])"
        })
    }

    @Test func theModernFolderRunsOnSQLCipher4AndIsReportedOn3() throws {
        let workspace = try Workspace()
        let options = ["--db-path", workspace.database, "--password-file", workspace.keyFile, "--migrations", folder]
        let migrate = try Tool.run(["migrate", "--no-backup"] + options)
        guard isFour else {
            #expect(migrate.exitCode == .migrationFailed, "\(migrate.output)")
            #expect(!FileManager.default.fileExists(atPath: workspace.database))
            let lint = try Tool.run(["lint", "--migrations", folder])
            #expect(lint.exitCode == .migrationFailed)
            #expect(reported(lint).isSuperset(of: [
                "0001_create_notes.sql:error[unsupported-sql]", "0002_search_notes.sql:error[unsupported-sql]",
                "0003_drop_pinned.sql:error[unsupported-sql]", "0004_note_metadata.sql:error[unsupported-sql]",
            ]), "\(lint.stdout)")
            #expect(lint.stdout.contains("STRICT tables") && lint.stdout.contains("FTS5") && lint.stdout.contains("DROP COLUMN")
                && lint.stdout.contains("JSON functions") && lint.stdout.contains("built without it"), "\(lint.stdout)")
            return
        }
        #expect(migrate.status == 0, "\(migrate.output)")
        let shell = try SQLCipherShell.run(workspace.database, key: workspace.key, """
            INSERT INTO notes (title, body, metadata) VALUES ('Groceries', 'eggs and flour', '{"color": "green"}'), ('Trip', 'pack the tent', NULL);
            UPDATE notes SET body = 'pack the tent and stove' WHERE title = 'Trip';
            SELECT title FROM notes_search WHERE notes_search MATCH 'stove';
            SELECT title FROM notes WHERE metadata ->> '$.color' = 'green';
            SELECT count(*) FROM pragma_table_info('notes') WHERE name = 'pinned';
            """)
        #expect(shell.status == 0 && shell.stdout == "Trip\nGroceries\n0\n", "\(shell.output)")
        let strict = try SQLCipherShell.run(workspace.database, key: workspace.key, "INSERT INTO notes (title) VALUES (x'00');")
        #expect(strict.status != 0 && strict.output.contains("cannot store BLOB value in TEXT column"), "\(strict.output)")
        let badJSON = try SQLCipherShell.run(workspace.database, key: workspace.key, "INSERT INTO notes (title, metadata) VALUES ('x', '{oops');")
        #expect(badJSON.status != 0 && badJSON.output.contains("CHECK constraint failed"), "\(badJSON.output)")
        let check = try Tool.run(["check", "--migrations", folder])
        #expect(check.status == 0 && check.stdout.contains("All 7 checks passed."), "\(check.output)")
        #expect(try Tool.run(["rollback", "--steps", "4", "--no-backup"] + options).status == 0)
    }

    @Test func minSQLiteReportsWhatAnOlderSQLCipherCannotRun() throws {
        let lint = try Tool.run(["lint", "--migrations", folder, "--min-sqlite", "3.15.2"])
        #expect(lint.exitCode == .migrationFailed, "\(lint.output)")
        #expect(lint.stdout.contains("STRICT tables needs SQLite 3.37.0") && lint.stdout.contains("DROP COLUMN needs SQLite 3.35.0")
            && lint.stdout.contains("->> JSON operators needs SQLite 3.38.0"), "\(lint.stdout)")
        #expect(reported(lint).contains(isFour ? "0002_search_notes.sql:warning[unsupported-sql]" : "0002_search_notes.sql:error[unsupported-sql]"), "\(lint.stdout)")
        // migrate and check take it too, and lint errors block migrate before anything exists.
        let workspace = try Workspace()
        let migrate = try Tool.run(["migrate", "--min-sqlite", "3.15.2", "--db-path", workspace.database, "--password-file", workspace.keyFile, "--migrations", folder])
        #expect(migrate.exitCode == .migrationFailed && !FileManager.default.fileExists(atPath: workspace.database), "\(migrate.output)")
        let check = try Tool.run(["check", "--migrations", folder, "--min-sqlite", "3.15.2"])
        #expect(check.exitCode == .migrationFailed && check.stdout.contains("FAILED lint"), "\(check.output)")
        // A version at least the linked one judges nothing differently.
        #expect(try Tool.run(["lint", "--migrations", folder, "--min-sqlite", SQLCipherLibrary.sqliteVersion]).status == (isFour ? 0 : 2))
    }

    /// SQL of SQLite 3.47 to 3.53, each form in a migration of its own, and the release
    /// the lint catalogue says added it. The features of 3.51 and before but the
    /// percentile aggregates (built in only with ENABLE_PERCENTILE) run on the Python
    /// client's SQLite 3.51.1, and those after it do not.
    private static let newerForms: [(file: String, sql: String, version: String)] = [
        ("0002_raise_expression.sql", "CREATE TRIGGER t_checked BEFORE INSERT ON t BEGIN SELECT RAISE(ABORT, 'bad ' || new.a); END;", "3.47.0"),
        ("0003_iif_two.sql", "UPDATE t SET doc = iif(a > 1, 'big');", "3.48.0"),
        ("0004_iif_many.sql", "UPDATE t SET doc = iif(a > 9, 'huge', a > 1, 'big', 'small');", "3.49.0"),
        ("0005_unistr.sql", "INSERT INTO t (a, doc) VALUES (1, unistr('caf\\u00e9'));", "3.50.0"),
        ("0006_jsonb_each.sql", "INSERT INTO t (a) SELECT key FROM jsonb_each('[1, 2]');", "3.51.0"),
        ("0007_median.sql", "INSERT INTO t (a) SELECT median(a) FROM t;", "3.51.0"),
        ("0008_json_array_insert.sql", "UPDATE t SET doc = json_array_insert('[1]', '$[0]', 0);", "3.53.0"),
        ("0009_set_not_null.sql", "ALTER TABLE t ALTER COLUMN a SET NOT NULL;", "3.53.0"),
        ("0010_add_check.sql", "ALTER TABLE t ADD CONSTRAINT positive CHECK (a > 0);", "3.53.0"),
        ("0011_reindex_expressions.sql", "REINDEX EXPRESSIONS;", "3.53.0"),
    ]

    /// Lint reports exactly the forms the linked SQLite fails (on 4.6.1's 3.46.1 and
    /// 3.4.1's 3.15.2, all of them), each named with the release that added it, and
    /// `--min-sqlite 3.46.1` reports them all wherever the linked SQLite is at least
    /// that: the migrate they would have failed in midway is refused before it starts.
    @Test func theFormsOfSQLite347To353AreReportedBeforeAnOlderSQLiteFailsThem() throws {
        let workspace = try Workspace()
        try workspace.migration("0001_t.sql", "-- migrate:up\nCREATE TABLE t (a INTEGER, doc TEXT);\n-- migrate:down\nDROP TABLE t;\n")
        let schema = "CREATE TABLE t (a INTEGER, doc TEXT);"
        let linked = try #require(SQLiteVersion(SQLCipherLibrary.sqliteVersion))
        var failsOnLinked: [String: Bool] = [:]
        for form in Self.newerForms {
            try workspace.migration(form.file, "-- migrate:up\n\(form.sql)\n-- migrate:down\nSELECT 1;\n")
            // Run by the linked library itself, on a plaintext scratch file (the shell may
            // carry functions of its own).
            let scratch = try SQLCipherWriter(path: workspace.path("probe-" + form.file + ".db"), key: nil)
            failsOnLinked[form.file] = (try? scratch.write { try $0.execute(sql: schema + "\n" + form.sql) }) == nil
            try scratch.close()
            guard PythonClients.enabled, form.file != "0007_median.sql" else { continue }
            let newer = try PythonClients.run("import sqlcipher3, sys\nsqlcipher3.connect(':memory:').executescript(sys.argv[1])", arguments: [schema + form.sql])
            #expect((newer.status == 0) == (SQLiteVersion(form.version)! <= SQLiteVersion(3, 51, 1)), "\(form.file) on SQLite 3.51.1 (sqlcipher3-binary): \(newer.output)")
        }
        func reported(_ lint: CommandResult, _ form: (file: String, sql: String, version: String)) -> [Substring] {
            lint.stdout.split(separator: "\n").filter { $0.contains(form.file) && $0.contains("error[unsupported-sql]") }
        }
        let lint = try Tool.run(["lint", "--migrations", workspace.migrations])
        for form in Self.newerForms {
            let lines = reported(lint, form)
            #expect(!lines.isEmpty == failsOnLinked[form.file], "\(form.file): lint and SQLite \(linked) disagree: \(lint.stdout)")
            if SQLiteVersion(form.version)! > linked {
                #expect(lines.contains { $0.contains("needs SQLite \(form.version) or later") }, "\(form.file): \(lint.stdout)")
            }
        }
        if linked >= SQLiteVersion(3, 46, 1) {
            let older = try Tool.run(["lint", "--migrations", workspace.migrations, "--min-sqlite", "3.46.1"])
            #expect(older.exitCode == .migrationFailed, "\(older.output)")
            for form in Self.newerForms {
                #expect(reported(older, form).contains { $0.contains("needs SQLite \(form.version) or later") }, "\(form.file): \(older.stdout)")
            }
        }
        guard failsOnLinked.values.contains(true) else { return }
        #expect(lint.exitCode == .migrationFailed, "\(lint.output)")
        let migrate = try workspace.run("migrate", ["--no-backup"])
        #expect(migrate.exitCode == .migrationFailed && !FileManager.default.fileExists(atPath: workspace.database), "\(migrate.output)")
    }

    @Test(arguments: ["abc", "3", "3.x", "99.0"])
    func aBadMinSQLiteIsAUsageError(_ value: String) throws {
        let lint = try Tool.run(["lint", "--migrations", folder, "--min-sqlite", value])
        #expect(lint.exitCode == .usage, "\(lint.output)")
        #expect(lint.stderr.split(separator: "\n").count == 1 && lint.stderr.contains("--min-sqlite"), "\(lint.stderr)")
    }
}
