import Foundation
@testable import MigrationKit
import Testing

@Suite struct MigrationLinterTests {
    @Test func findingsAreSortedByPathThenLine() throws {
        let files = [try LintFixture.file("0002_b", up: "SELECT iif(1, 2, 3);\nVACUUM;", down: nil),
                     try LintFixture.file("0001_a", up: "SELECT 1;\n\nBEGIN;\nPRAGMA foreign_keys = OFF;")]
        let findings = MigrationLinter(context: LintFixture.debian12).lint(files)
        #expect(findings.map(\.path) == ["migrations/0001_a.sql", "migrations/0001_a.sql",
                                         "migrations/0002_b.sql", "migrations/0002_b.sql", "migrations/0002_b.sql"])
        #expect(findings.map(\.line) == [4, 5, 1, 2, 3])
        #expect(findings.map(\.rule) == ["transaction-control", "pragma-foreign-keys", "missing-down", "unsupported-sql", "transaction-control"])
    }

    @Test func descriptionReadsLikeACompilerDiagnostic() {
        let finding = LintFinding(rule: "missing-down", severity: .warning, path: "m/1.sql", line: 3,
                                  message: "No down.", fix: "Add one.")
        #expect(finding.description == "m/1.sql:3: warning[missing-down]: No down. Fix: Add one.")
        let error = LintFinding(rule: "unsupported-sql", severity: .error, path: "a.sql", line: 1, message: "M.", fix: "F.")
        #expect(error.description == "a.sql:1: error[unsupported-sql]: M. Fix: F.")
    }

    @Test func findingsRoundTripThroughJSONWithPlainSeverities() throws {
        let finding = LintFinding(rule: "drop-table-with-data", severity: .warning, path: "p", line: 7, message: "m", fix: "f")
        let data = try JSONEncoder().encode(finding)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["severity"] as? String == "warning")
        #expect(object["rule"] as? String == "drop-table-with-data")
        #expect(try JSONDecoder().decode(LintFinding.self, from: data) == finding)
        #expect(try JSONDecoder().decode(LintSeverity.self, from: Data("\"error\"".utf8)) == .error)
    }

    @Test func aCleanBatchHasNoFindings() throws {
        let files = [
            try LintFixture.file("0001_users", up: """
                CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE INDEX users_name ON users (name);
                """, down: "DROP TABLE users;"),
            try LintFixture.file("0002_age", up: "ALTER TABLE users ADD COLUMN age INTEGER NOT NULL DEFAULT 0;",
                                 down: "SELECT 1; -- nothing to undo on SQLite 3.15.2"),
            try LintFixture.file("0003_log", up: """
                CREATE TABLE log (at TEXT DEFAULT CURRENT_TIMESTAMP, what TEXT);
                CREATE TRIGGER users_log AFTER INSERT ON users BEGIN
                    INSERT INTO log (what) VALUES ('user ' || new.name);
                END;
                """, down: "DROP TRIGGER users_log;\nDROP TABLE log;"),
        ]
        let findings = MigrationLinter(context: LintFixture.debian12).lint(files)
        #expect(findings.isEmpty, "\(findings.map(\.description))")
    }

    @Test func downSectionsGetOnlyTheCanItRunRules() throws {
        let context = LintFixture.database(rows: ["t": 9], views: ["t": ["v"]])
        let findings = try LintFixture.lint("SELECT 1;", context: context, down: """
            ALTER TABLE t DROP COLUMN c;
            DROP TABLE t;
            ALTER TABLE t RENAME TO u;
            COMMIT;
            """)
        #expect(findings.map(\.rule) == ["unsupported-sql", "transaction-control"])
        #expect(findings.map(\.line) == [4, 7])
    }

    @Test func upDownFilesReportTheDownFilesPath() throws {
        let file = try SQLMigrationFileParser.parseUpDown(upText: "CREATE TABLE t (a);", upPath: "m/1.up.sql",
                                                          downText: "\nALTER TABLE t DROP COLUMN a;", downPath: "m/1.down.sql",
                                                          identifier: "1")
        let findings = MigrationLinter(context: LintFixture.debian12).lint([file])
        #expect(findings.map(\.path) == ["m/1.down.sql"])
        #expect(findings.map(\.line) == [2])
    }

    @Test func noDatabaseContextNamesTheVersion() {
        let context = LintContext(sqliteVersion: SQLiteVersion(3, 15, 2))
        #expect(context.libraryDescription == "SQLite 3.15.2")
        #expect(context.rowCount("t") == nil)
        #expect(context.viewsReferencing("t").isEmpty)
    }
}

@Suite struct SQLiteVersionTests {
    @Test func parsesLibraryVersionText() {
        #expect(SQLiteVersion("3.15.2") == SQLiteVersion(3, 15, 2))
        #expect(SQLiteVersion("3.45") == SQLiteVersion(3, 45, 0))
        #expect(SQLiteVersion("3.7.16.1") == SQLiteVersion(3, 7, 16))
        for bad in ["", "3", "3.", "3..1", "a.b.c", "3.15.2 community", " 3.15.2", "3.15.-2", "1.2.3.4.5", "3.99999999999.0", "３.1.2"] {
            #expect(SQLiteVersion(bad) == nil, "\(bad)")
        }
    }

    @Test func ordersNumericallyNotAlphabetically() {
        #expect(SQLiteVersion(3, 9, 0) < SQLiteVersion(3, 15, 2))
        #expect(SQLiteVersion(3, 15, 2) < SQLiteVersion(3, 16, 0))
        #expect(SQLiteVersion(3, 35, 5) > SQLiteVersion(3, 35, 0))
        #expect(SQLiteVersion(3, 15, 2).description == "3.15.2")
    }
}
