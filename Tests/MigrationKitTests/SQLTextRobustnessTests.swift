@testable import MigrationKit
import MigrationKitTestSupport
import Testing

/// Bounded, deterministic stress for everything that reads migration text: random
/// bytes, soups of SQL tokens, and mutations of real migrations must tokenize,
/// split, lint and parse without trapping, and keep the tokenizer's contract. The
/// libFuzzer target (scripts/fuzz.sh) explores further; what it finds lands in
/// `regressions` below.
@Suite struct SQLTextRobustnessTests {

    static let contexts = [
        LintContext(sqliteVersion: SQLiteVersion(3, 15, 2), libraryDescription: "SQLCipher 3.4.1 (SQLite 3.15.2)"),
        LintContext(sqliteVersion: SQLiteVersion(3, 46, 1), libraryDescription: "SQLite 3.46.1",
                    rowCount: { $0.count % 2 == 0 ? 7 : nil }, viewsReferencing: { ["v_\($0)"] }),
    ]

    /// Bytes SQL text handling cares about, repeated to weigh the draw toward them.
    static let interestingBytes: [UInt8] = Array("'\"`[]()-;/*xX?:@$#.\n \t\r0123456789eE|<>=!~+,abcENDBEGIN".utf8)
        + [0x00, 0x01, 0x0B, 0xC3, 0xA9, 0xEF, 0xBB, 0xBF, 0xFF, 0x80, 0xE2, 0x82]

    static let vocabulary = [
        "CREATE", "TEMP", "TRIGGER", "t", "AFTER", "INSERT", "ON", "BEGIN", "END", ";", "CASE", "WHEN", "THEN", "ELSE",
        "EXPLAIN", "TABLE", "VIEW", "AS", "SELECT", "FROM", "WHERE", "(", ")", ",", ".", "ALTER", "ADD", "COLUMN",
        "NOT", "NULL", "DEFAULT", "DROP", "IF", "EXISTS", "RENAME", "TO", "CONFLICT", "DO", "UPDATE", "SET",
        "NOTHING", "RETURNING", "OVER", "FILTER", "NULLS", "LAST", "GENERATED", "ALWAYS", "STRICT", "WITH",
        "MATERIALIZED", "IS", "DISTINCT", "RIGHT", "JOIN", "PRAGMA", "main", "foreign_keys", "=", "OFF", "COMMIT",
        "ROLLBACK", "SAVEPOINT", "RELEASE", "VACUUM", "ATTACH", "TRUE", "iif", "json_extract", "pragma_table_info",
        "sqlite_schema", "->>", "->", "'str'", "'", "\"id\"", "\"", "[b]", "[", "`q`", "x'00'", "x'", "/*", "*/",
        "-- c", "\n", "-- migrate:up\n", "-- migrate:down\n", "-- migrate:merging a b\n", "-- migrate:up transaction:false\n",
        "?1", ":p", "$a(", "1.5e3", ".5", "0x1F", "é", "\u{0}", "\u{FEFF}",
    ]

    static let migrations = [
        """
        -- migrate:up
        CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
        ALTER TABLE users ADD COLUMN age INTEGER NOT NULL;
        CREATE VIEW adults AS SELECT * FROM users WHERE age >= 18;
        ALTER TABLE users RENAME TO people;
        -- migrate:down
        ALTER TABLE people RENAME TO users;
        """,
        """
        -- migrate:up
        CREATE TRIGGER log AFTER UPDATE ON users BEGIN
            UPDATE counts SET n = CASE WHEN n IS NULL THEN 1 ELSE n + 1 END;
            INSERT INTO log VALUES ('it''s', "q""uoted", [b;r], x'00');
        END;
        INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET b = 2 RETURNING *;
        SELECT row_number() OVER (ORDER BY a), iif(a, 1, 2), doc ->> '$.x' FROM t ORDER BY a NULLS LAST;
        -- migrate:down
        DROP TRIGGER log; /* unterminated
        """,
        """
        -- migrate:merging 0001_a 0002_b
        -- migrate:up
        BEGIN; PRAGMA main.foreign_keys = OFF; DROP TABLE IF EXISTS old; VACUUM; COMMIT;
        CREATE TABLE g (a INTEGER, b AS (a * 2) STORED) STRICT;
        UPDATE t SET a = s.a FROM s WHERE s.id = t.id;
        """,
    ]

    /// Inputs that once broke something; each must keep running cleanly.
    static let regressions: [[UInt8]] = [
        Array("CREATE TRIGGER".utf8),
        Array("CREATE TRIGGER x BEGIN".utf8),
        Array("CREATE TRIGGER BEGIN END".utf8),
        Array("ALTER TABLE t ADD".utf8),
        Array("ALTER TABLE t ADD COLUMN".utf8),
        Array("ALTER TABLE t ADD c NOT NULL DEFAULT (".utf8),
        Array("CREATE TABLE t (".utf8),
        Array("CREATE TABLE t ( ) STRICT".utf8),
        Array("CREATE VIEW v (".utf8),
        Array("INSERT".utf8),
        Array(")))(((".utf8),
        Array("-- migrate:up\n-- migrate:down".utf8),
        Array("'\u{0}".utf8),
        [0xEF, 0xBB],
        [0xFF, 0xFE, 0x27],
    ]

    @Test func randomInputsNeverTrapAndKeepTheTokenizerContract() {
        var generator = SeededGenerator(state: 0x5EED_2024)
        var inputs: [[UInt8]] = Self.regressions
        let count = TestDepth.count(quick: 200, full: 1000)
        for _ in 0..<count { inputs.append(Self.byteSoup(&generator)) }
        for _ in 0..<count { inputs.append(Self.tokenSoup(&generator)) }
        for _ in 0..<count { inputs.append(Self.mutatedMigration(&generator)) }
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for input in inputs where !Self.survives(input) {
                Issue.record("Broken contract for input bytes \(input)")
                return
            }
        }
        // A generous bound: it guards against a quadratic slip, not against a slow machine.
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    @Test func largeMigrationsLintInLinearTime() throws {
        var up = String(repeating: "INSERT INTO t VALUES (1, 'a;b', x'00', \"q\"); -- note\n", count: 5_000)
        up += "CREATE TRIGGER big AFTER INSERT ON t BEGIN\n"
            + String(repeating: "  UPDATE c SET n = CASE WHEN n > 0 THEN n + 1 ELSE 1 END;\n", count: 2_000) + "END;\n"
        up += "SELECT " + String(repeating: "iif(a, 1, 2) + ", count: 10_000) + "1;\n"
        let file = SQLMigrationFile(identifier: "big", form: .upDownFiles,
                                    up: SQLSection(sql: up, path: "big.up.sql", startLine: 1), down: nil)
        let clock = ContinuousClock()
        var findings: [LintFinding] = []
        let elapsed = clock.measure {
            findings = MigrationLinter(context: Self.contexts[0]).lint([file])
        }
        #expect(findings.map(\.rule) == ["missing-down", "unsupported-sql"])
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    /// Runs one input through everything; false when a contract broke (a trap would
    /// end the test process instead, which is what the test guards against).
    static func survives(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        let tokens = SQLTokenizer.tokenize(text)
        guard tokens.map(\.text).joined() == text else { return false }
        var offset = 0
        for token in tokens {
            guard token.offset == offset, !token.text.isEmpty, token.line >= 1, token.column >= 1 else { return false }
            offset += token.text.utf8.count
        }
        for statement in SQLStatementSplitter.split(text) {
            guard let first = statement.tokens.first, statement.startLine == first.line,
                  !statement.tokens.contains(where: \.isTrivia) else { return false }
        }
        var files = [SQLMigrationFile(identifier: "random", form: .upDownFiles,
                                      up: SQLSection(sql: text, path: "random.up.sql", startLine: 1),
                                      down: SQLSection(sql: text, path: "random.down.sql", startLine: 1))]
        if let parsed = try? SQLMigrationFileParser.parseSections(text, identifier: "random_sections", path: "random.sql") {
            files.append(parsed)
        }
        for context in contexts {
            for finding in MigrationLinter(context: context).lint(files) where finding.line < 1 || finding.message.isEmpty {
                return false
            }
        }
        return true
    }

    static func byteSoup(_ generator: inout SeededGenerator) -> [UInt8] {
        (0..<Int.random(in: 0...160, using: &generator)).map { _ in
            Bool.random(using: &generator)
                ? interestingBytes.randomElement(using: &generator) ?? 0
                : UInt8.random(in: 0...255, using: &generator)
        }
    }

    static func tokenSoup(_ generator: inout SeededGenerator) -> [UInt8] {
        var text = ""
        for _ in 0..<Int.random(in: 0...60, using: &generator) {
            text += vocabulary.randomElement(using: &generator) ?? ""
            text += ["", " ", " ", "\n"].randomElement(using: &generator) ?? ""
        }
        return Array(text.utf8)
    }

    static func mutatedMigration(_ generator: inout SeededGenerator) -> [UInt8] {
        var bytes = Array((migrations.randomElement(using: &generator) ?? "").utf8)
        for _ in 0..<Int.random(in: 1...6, using: &generator) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...40, using: &generator)))
            case 1:
                bytes.insert(contentsOf: (vocabulary.randomElement(using: &generator) ?? "").utf8, at: position)
            case 2:
                if !bytes.isEmpty { bytes[position] = interestingBytes.randomElement(using: &generator) ?? 0 }
            case 3:
                let end = min(bytes.count, position + Int.random(in: 1...60, using: &generator))
                bytes.insert(contentsOf: Array(bytes[position..<end]), at: position)
            default:
                bytes.removeSubrange(position..<bytes.count)
            }
        }
        return bytes
    }
}
