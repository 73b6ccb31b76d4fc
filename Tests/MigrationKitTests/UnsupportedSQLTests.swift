@testable import MigrationKit
import Testing

@Suite struct UnsupportedSQLTests {
    private let rule = "unsupported-sql"

    /// One statement per feature of the catalog, with the release that added it.
    static let uses: [(sql: String, version: String)] = [
        ("CREATE TABLE t (a INTEGER) STRICT;", "3.37.0"),
        ("CREATE TABLE t (a INTEGER) WITHOUT ROWID, STRICT;", "3.37.0"),
        ("ALTER TABLE t RENAME COLUMN a TO b;", "3.25.0"),
        ("ALTER TABLE t RENAME a TO b;", "3.25.0"),
        ("ALTER TABLE t DROP COLUMN a;", "3.35.0"),
        ("INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET b = excluded.b;", "3.24.0"),
        ("INSERT INTO t (a) VALUES (1) ON CONFLICT DO NOTHING;", "3.24.0"),
        ("INSERT INTO t (a) VALUES (1) ON CONFLICT DO UPDATE SET b = 2;", "3.35.0"),
        ("INSERT INTO t (a) VALUES (1) RETURNING id;", "3.35.0"),
        ("DELETE FROM t WHERE a = 1 RETURNING *;", "3.35.0"),
        ("CREATE TABLE t (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) STORED);", "3.31.0"),
        ("CREATE TABLE t (a INTEGER, b INTEGER AS (a * 2));", "3.31.0"),
        ("ALTER TABLE t ADD COLUMN b INTEGER AS (a * 2);", "3.31.0"),
        ("SELECT row_number() OVER (ORDER BY a) FROM t;", "3.25.0"),
        ("SELECT sum(a) OVER win FROM t WINDOW win AS (ORDER BY a);", "3.25.0"),
        ("SELECT count(*) FILTER (WHERE a > 1) FROM t;", "3.30.0"),
        ("SELECT a FROM t ORDER BY a NULLS LAST;", "3.30.0"),
        ("UPDATE t SET a = s.a FROM s WHERE s.id = t.id;", "3.33.0"),
        ("SELECT iif(a > 1, 'big', 'small') FROM t;", "3.32.0"),
        ("SELECT name FROM sqlite_schema;", "3.33.0"),
        ("SELECT name FROM \"sqlite_schema\";", "3.33.0"),
        ("SELECT name FROM pragma_table_info('t');", "3.16.0"),
        ("SELECT doc -> '$.a' FROM t;", "3.38.0"),
        ("SELECT doc ->> 'a' FROM t;", "3.38.0"),
        ("SELECT a IS DISTINCT FROM b FROM t;", "3.39.0"),
        ("SELECT a IS NOT DISTINCT FROM b FROM t;", "3.39.0"),
        ("SELECT unixepoch();", "3.38.0"),
        ("SELECT format('%d', 1);", "3.38.0"),
        ("SELECT * FROM a RIGHT JOIN b ON a.id = b.id;", "3.39.0"),
        ("SELECT * FROM a FULL OUTER JOIN b ON a.id = b.id;", "3.39.0"),
        ("ALTER TABLE t ADD COLUMN active BOOLEAN DEFAULT TRUE;", "3.23.0"),
        ("UPDATE t SET active = false;", "3.23.0"),
        ("WITH x AS MATERIALIZED (SELECT 1) SELECT * FROM x;", "3.35.0"),
        ("SELECT substring('abc', 2);", "3.34.0"),
        ("SELECT unhex('00');", "3.41.0"),
        ("SELECT octet_length(a), timediff(a, b) FROM t;", "3.43.0"),
        ("SELECT concat(a, b), string_agg(a, ',') FROM t;", "3.44.0"),
        ("SELECT jsonb('{}');", "3.45.0"),
        ("SELECT if(a, 1, 2) FROM t;", "3.48.0"),
        ("SELECT group_concat(a, ',' ORDER BY b DESC) FROM t;", "3.44.0"),
        ("SELECT 1_000_000, 0.000_1 FROM t;", "3.46.0"),
        ("SELECT sqrt(a), ln(b) FROM t;", "3.35.0"),
        ("SELECT json_pretty(doc) FROM t;", "3.46.0"),
        ("CREATE TRIGGER g BEFORE INSERT ON t BEGIN SELECT RAISE(ABORT, 'bad ' || new.a); END;", "3.47.0"),
        ("CREATE TRIGGER g BEFORE INSERT ON t BEGIN SELECT RAISE(FAIL, printf('%d', new.a)); END;", "3.47.0"),
        ("SELECT iif(a > 1, 'big') FROM t;", "3.48.0"),
        ("SELECT iif(a > 9, 'huge', a > 1, 'big', 'small') FROM t;", "3.49.0"),
        ("SELECT unistr('caf\\u00e9');", "3.50.0"),
        ("SELECT unistr_quote(a) FROM t;", "3.50.0"),
        ("SELECT key, value FROM jsonb_each('[1, 2]');", "3.51.0"),
        ("SELECT count(*) FROM t, jsonb_tree(t.doc);", "3.51.0"),
        ("UPDATE t SET doc = json_array_insert(doc, '$[0]', 1);", "3.53.0"),
        ("UPDATE t SET doc = jsonb_array_insert(doc, '$[0]', 1);", "3.53.0"),
        ("ALTER TABLE t ALTER COLUMN a SET NOT NULL;", "3.53.0"),
        ("ALTER TABLE main.t ALTER COLUMN a DROP NOT NULL;", "3.53.0"),
        ("ALTER TABLE t ADD CONSTRAINT positive CHECK (a > 0);", "3.53.0"),
        ("ALTER TABLE t ADD CHECK (a > 0);", "3.53.0"),
        ("ALTER TABLE t DROP CONSTRAINT positive;", "3.53.0"),
        ("REINDEX EXPRESSIONS;", "3.53.0"),
    ]

    /// Features a build has only when compiled with them, and the option.
    static let buildOptional: [(sql: String, option: String)] = [
        ("CREATE VIRTUAL TABLE docs USING fts5(title, body);", "ENABLE_FTS5"),
        ("SELECT json_extract(doc, '$.a') FROM t;", "ENABLE_JSON1"),
        ("SELECT json('{}');", "ENABLE_JSON1"),
        ("SELECT * FROM t, json_each(t.doc);", "ENABLE_JSON1"),
        ("SELECT value FROM json_each('[1, 2]');", "ENABLE_JSON1"),
        ("SELECT pow(a, 2) FROM t;", "ENABLE_MATH_FUNCTIONS"),
        ("SELECT median(a) FROM t;", "ENABLE_PERCENTILE"),
        ("SELECT percentile_cont(a, 0.9), percentile_disc(a, 0.1), percentile(a, 50) FROM t;", "ENABLE_PERCENTILE"),
    ]

    /// A library new enough (3.37, no built-in JSON yet; 3.51 for the percentile
    /// aggregates) whose build is known and lacks them is an error; one whose build
    /// nobody here knows (`--min-sqlite`) a warning; one built with them, or 3.38+ for
    /// JSON, nothing.
    @Test(arguments: buildOptional)
    func buildOptionalFeaturesDependOnTheBuild(_ use: (sql: String, option: String)) throws {
        let newEnough = use.option == "ENABLE_PERCENTILE" ? SQLiteVersion(3, 51, 0) : SQLiteVersion(3, 37, 0)
        var without = LintContext(sqliteVersion: newEnough, libraryDescription: "SQLite \(newEnough)")
        without.compileOptions = ["ENABLE_FTS3"]
        let missing = try LintFixture.lint(use.sql, rule: rule, context: without)
        #expect(missing.count == 1 && missing.first?.severity == .error, "\(use.sql): \(missing)")
        #expect(missing.first?.message.contains(use.option) == true && missing.first?.message.contains("built without it") == true)
        let unknown = try LintFixture.lint(use.sql, rule: rule, context: LintFixture.modern.judgedAgainst(minimum: newEnough))
        #expect(unknown.count == 1 && unknown.first?.severity == .warning, "\(use.sql): \(unknown)")
        #expect(unknown.first?.message.contains("the oldest the migrations must run on") == true
                && unknown.first?.message.contains("Debian 12") == true)
        var with = without
        with.compileOptions = [use.option]
        #expect(try LintFixture.lint(use.sql, rule: rule, context: with).isEmpty)
        #expect(try LintFixture.lint(use.sql, rule: rule, context: LintFixture.debian12).first?.severity == .error)
    }

    @Test(arguments: uses)
    func flagsEachFeatureOnSQLite3152(_ use: (sql: String, version: String)) throws {
        let findings = try LintFixture.lint(use.sql, rule: rule)
        #expect(!findings.isEmpty, "\(use.sql)")
        #expect(findings.contains { $0.message.contains("needs SQLite \(use.version) or later") }, "\(use.sql): \(findings)")
        for finding in findings {
            #expect(finding.severity == .error)
            #expect(finding.line == 2)
            #expect(finding.message.contains("SQLCipher 3.4.1 (SQLite 3.15.2)"))
            #expect(!finding.fix.isEmpty)
        }
    }

    @Test(arguments: uses)
    func aNewEnoughLibraryRunsThemAll(_ use: (sql: String, version: String)) throws {
        #expect(try LintFixture.lint(use.sql, rule: rule, context: LintFixture.modern).isEmpty, "\(use.sql)")
    }

    @Test func onlyFeaturesNewerThanTheLinkedLibraryAreFlagged() throws {
        let context = LintContext(sqliteVersion: SQLiteVersion(3, 38, 0))
        #expect(try LintFixture.lint("SELECT doc ->> 'a' FROM t;", rule: rule, context: context).isEmpty)
        let findings = try LintFixture.lint("SELECT a IS DISTINCT FROM b FROM t;", rule: rule, context: context)
        #expect(findings.first?.message.contains("on SQLite 3.38.0") == true)
    }

    @Test func targetlessDoUpdateNamesTheReleaseThatAllowsIt() throws {
        let context = LintContext(sqliteVersion: SQLiteVersion(3, 30, 0))
        let findings = try LintFixture.lint("INSERT INTO t VALUES (1) ON CONFLICT DO UPDATE SET a = 2;", rule: rule, context: context)
        #expect(findings.count == 1)
        #expect(findings.first?.message.contains("3.35.0") == true)
        #expect(try LintFixture.lint("INSERT INTO t VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2;", rule: rule, context: context).isEmpty)
    }

    @Test func fixesGiveThePortableRewrite() throws {
        let fixes = [
            "ALTER TABLE t DROP COLUMN a;": "12-step",
            "ALTER TABLE t RENAME COLUMN a TO b;": "12-step",
            "INSERT INTO t VALUES (1) ON CONFLICT (a) DO NOTHING;": "INSERT OR IGNORE",
            "SELECT iif(a, 1, 2);": "CASE WHEN",
            "SELECT name FROM sqlite_schema;": "sqlite_master",
        ]
        for (sql, rewrite) in fixes {
            #expect(try LintFixture.lint(sql, rule: rule).first?.fix.contains(rewrite) == true, "\(sql)")
        }
    }

    @Test func lookalikesAreNotFlagged() throws {
        let sql = """
        INSERT OR REPLACE INTO t VALUES (1);
        INSERT OR IGNORE INTO t VALUES (1);
        CREATE TABLE u (a INTEGER UNIQUE ON CONFLICT REPLACE, b TEXT NOT NULL ON CONFLICT IGNORE);
        CREATE TABLE copy AS SELECT CAST(a AS INTEGER) AS a FROM t;
        CREATE TABLE v (a INTEGER DEFAULT (CAST('1' AS INTEGER)), b TEXT CHECK (CAST(b AS TEXT) <> ''), strict INTEGER);
        CREATE VIEW w (x) AS SELECT a FROM t;
        UPDATE t SET a = (SELECT b FROM s WHERE s.id = t.id) WHERE EXISTS (SELECT 1 FROM s);
        UPDATE t SET returning = 1;
        SELECT returning, nulls, t.true, over FROM t;
        SELECT sum(a) over FROM t;
        SELECT a IS NOT NULL, b IS NULL FROM t LEFT JOIN s ON s.id = t.id;
        SELECT name FROM sqlite_master WHERE name <> 'sqlite_schema';
        SELECT 'iif(1,2,3)', "json(", 'a -> b', 'unixepoch()' FROM t; -- json_extract(x) iif(
        /* ON CONFLICT DO NOTHING RETURNING *; STRICT; OVER (ORDER BY a) */
        SELECT printf('%d', 1), substr('abc', 2), group_concat(a, ',') FROM t;
        SELECT x.json(1), x.iif(1) FROM t;
        PRAGMA foreign_keys = TRUE;
        PRAGMA table_info(t);
        SELECT a FROM t WHERE b IN (SELECT c FROM u ORDER BY c LIMIT 1);
        SELECT (SELECT x FROM u ORDER BY x LIMIT 1), col_1, "1_000", '1_000', log FROM t;
        SELECT x.sqrt(1), t.pow FROM t;
        CREATE VIRTUAL TABLE docs USING fts4(body);
        INSERT INTO log (what) VALUES ('x');
        CREATE TABLE pow (x);
        CREATE INDEX pow_x ON pow (x);
        DROP TABLE IF EXISTS t;
        CREATE TABLE IF NOT EXISTS t (a);
        """
        let findings = try LintFixture.lint(sql, rule: rule)
        #expect(findings.isEmpty, "\(findings.map(\.description))")
    }

    /// On SQLite 3.46.1 (SQLCipher 4.6.1's), the forms of 3.47 to 3.53 are flagged, each
    /// on its line, and what 3.46.1 runs beside them is not: RAISE with a literal
    /// message, iif() with three arguments (commas inside its arguments are theirs), ADD
    /// COLUMN with a CHECK, REINDEX of a name, a quoted or qualified name like a newer
    /// function's.
    @Test func onSQLite3461OnlyTheFormsOfLaterReleasesAreFlagged() throws {
        var context = LintContext(sqliteVersion: SQLiteVersion(3, 46, 1), libraryDescription: "SQLCipher 4.6.1 (SQLite 3.46.1)")
        context.compileOptions = ["ENABLE_FTS5", "ENABLE_MATH_FUNCTIONS"]
        let older = """
        CREATE TRIGGER g BEFORE INSERT ON t BEGIN SELECT RAISE(ABORT, 'bad'), RAISE(ROLLBACK, "quoted"), RAISE(FAIL, name), RAISE(IGNORE); END;
        SELECT iif(a > 1, 'big', 'small'), iif((a, b) IN (SELECT 1, 2), f(1, 2), g(3, 4)) FROM t;
        ALTER TABLE t ADD COLUMN c INTEGER CHECK (c > 0);
        ALTER TABLE t ADD d INTEGER CONSTRAINT positive CHECK (d > 0);
        ALTER TABLE t DROP COLUMN "constraint";
        REINDEX t;
        REINDEX expressions_index;
        SELECT json_each.value, json_pretty(doc) FROM t, json_each(t.doc);
        SELECT "median"(1), t.unistr(1), 'unistr(1)' FROM t;
        SELECT jsonb_extract(doc, '$.a') FROM t;
        """
        let newer = Self.uses.filter { SQLiteVersion($0.version)! > SQLiteVersion(3, 46, 1) }.map(\.sql)
        let findings = try LintFixture.lint(older + "\n" + newer.joined(separator: "\n"), rule: rule, context: context)
        let olderLines = older.split(separator: "\n").count
        // The fixture's file starts with its `-- migrate:up` line.
        #expect(Set(findings.map(\.line)) == Set((0..<newer.count).map { olderLines + 2 + $0 }), "\(findings.map(\.description))")
    }

    @Test func triggerBodiesAreCheckedStatementByStatement() throws {
        let sql = """
        CREATE TRIGGER a AFTER UPDATE OF c ON t
        BEGIN
            INSERT INTO log SELECT * FROM t WHERE id = new.id;
            UPDATE totals SET n = n + 1;
        END;
        CREATE TRIGGER b AFTER INSERT ON t
        BEGIN
            UPDATE totals SET n = s.n FROM s WHERE s.id = new.id;
        END;
        """
        let findings = try LintFixture.lint(sql, rule: rule)
        #expect(findings.map(\.line) == [9])
        #expect(findings.first?.message.contains("UPDATE … FROM") == true)
    }

    @Test func oneFindingPerFeaturePerStatementOnTheLineOfItsFirstUse() throws {
        let findings = try LintFixture.lint("SELECT\n  iif(a, 1, 2),\n  iif(b, 1, 2),\n  a ->> 'x'\nFROM t;", rule: rule)
        #expect(findings.map(\.line) == [3, 5])
    }
}
