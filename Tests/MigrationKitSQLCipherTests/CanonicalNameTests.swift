import CSQLCipher
import Foundation
@testable import MigrationKit
import Testing

/// One name, quoted or not: over SQLite's whole keyword list, each word as a table's,
/// a column's, an index's, a trigger's and a view's name and in every place a schema
/// names one of them, written bare, `"x"`, `'x'` (and `[x]`, `` `x` ``). The linked SQLite
/// is the judge: it says which spellings it takes, and what each means (the objects,
/// their columns, and the programs SQLite compiles for them). Wherever two spellings
/// mean the same, their canonical text must be the same, and wherever they differ
/// (`current_date` the function, `"current_date"` the column), it must differ; and
/// the canonical text must be SQL the linked SQLite takes, meaning what the statement
/// meant. Run on both platforms, whose SQLites take different keywords bare.
@Suite struct CanonicalNameTests {
    /// sqlite.org/lang_keywords.html, and words schemas name things by that SQLite
    /// does not reserve but treats specially (types, rowid aliases, booleans, schemas).
    static let words = [
        "ABORT", "ACTION", "ADD", "AFTER", "ALL", "ALTER", "ALWAYS", "ANALYZE", "AND", "AS", "ASC", "ATTACH",
        "AUTOINCREMENT", "BEFORE", "BEGIN", "BETWEEN", "BY", "CASCADE", "CASE", "CAST", "CHECK", "COLLATE", "COLUMN",
        "COMMIT", "CONFLICT", "CONSTRAINT", "CREATE", "CROSS", "CURRENT", "CURRENT_DATE", "CURRENT_TIME",
        "CURRENT_TIMESTAMP", "DATABASE", "DEFAULT", "DEFERRABLE", "DEFERRED", "DELETE", "DESC", "DETACH", "DISTINCT",
        "DO", "DROP", "EACH", "ELSE", "END", "ESCAPE", "EXCEPT", "EXCLUDE", "EXCLUSIVE", "EXISTS", "EXPLAIN", "FAIL",
        "FILTER", "FIRST", "FOLLOWING", "FOR", "FOREIGN", "FROM", "FULL", "GENERATED", "GLOB", "GROUP", "GROUPS",
        "HAVING", "IF", "IGNORE", "IMMEDIATE", "IN", "INDEX", "INDEXED", "INITIALLY", "INNER", "INSERT", "INSTEAD",
        "INTERSECT", "INTO", "IS", "ISNULL", "JOIN", "KEY", "LAST", "LEFT", "LIKE", "LIMIT", "MATCH", "MATERIALIZED",
        "NATURAL", "NO", "NOT", "NOTHING", "NOTNULL", "NULL", "NULLS", "OF", "OFFSET", "ON", "OR", "ORDER", "OTHERS",
        "OUTER", "OVER", "PARTITION", "PLAN", "PRAGMA", "PRECEDING", "PRIMARY", "QUERY", "RAISE", "RANGE", "RECURSIVE",
        "REFERENCES", "REGEXP", "REINDEX", "RELEASE", "RENAME", "REPLACE", "RESTRICT", "RETURNING", "RIGHT", "ROLLBACK",
        "ROW", "ROWS", "SAVEPOINT", "SELECT", "SET", "TABLE", "TEMP", "TEMPORARY", "THEN", "TIES", "TO", "TRANSACTION",
        "TRIGGER", "UNBOUNDED", "UNION", "UNIQUE", "UPDATE", "USING", "VACUUM", "VALUES", "VIEW", "VIRTUAL", "WHEN",
        "WHERE", "WINDOW", "WITH", "WITHOUT",
        "INTEGER", "TEXT", "REAL", "BLOB", "NUMERIC", "STRICT", "STORED", "ROWID", "OID", "_ROWID_", "TRUE", "FALSE", "MAIN",
    ].map { $0.lowercased() }

    /// A place a name stands: the statement with `{n}` for the name as spelled, after
    /// a setup with `{q}` for it double-quoted.
    struct Place: Sendable {
        let name: String
        var setup = ""
        let statement: String
    }

    static let places = [
        Place(name: "table", statement: "CREATE TABLE {n} (a TEXT)"),
        Place(name: "table if not exists", statement: "CREATE TABLE IF NOT EXISTS {n} (a TEXT)"),
        Place(name: "column", statement: "CREATE TABLE t ({n} TEXT, b VARCHAR(255) NOT NULL)"),
        Place(name: "column without a type", statement: "CREATE TABLE t (a, {n})"),
        Place(name: "column with constraints", statement: "CREATE TABLE t (a INTEGER PRIMARY KEY, {n} INTEGER NOT NULL DEFAULT 0 CHECK ({n} >= 0))"),
        Place(name: "column with literals", statement: "CREATE TABLE t ({n} TEXT DEFAULT 'x' CHECK ({n} <> 'y' AND length({n}) < 10), CHECK ({n} || 'z' <> 'q'))"),
        Place(name: "key columns", statement: "CREATE TABLE t (a, {n} TEXT, PRIMARY KEY (a, {n}), UNIQUE ({n}))"),
        Place(name: "foreign key", setup: "CREATE TABLE {q} ({q} PRIMARY KEY);",
              statement: "CREATE TABLE t (a, {n} TEXT, FOREIGN KEY ({n}) REFERENCES {n} ({n}) ON DELETE CASCADE)"),
        Place(name: "column reference", setup: "CREATE TABLE {q} ({q} PRIMARY KEY);",
              statement: "CREATE TABLE t (a TEXT REFERENCES {n} ({n}))"),
        Place(name: "constraint", statement: "CREATE TABLE t (a TEXT CONSTRAINT {n} NOT NULL, CONSTRAINT {n} UNIQUE (a))"),
        Place(name: "index", setup: "CREATE TABLE t (a);", statement: "CREATE INDEX {n} ON t (a)"),
        Place(name: "index's table and column", setup: "CREATE TABLE {q} ({q}, b);",
              statement: "CREATE UNIQUE INDEX i ON {n} (b, {n} COLLATE NOCASE DESC, {n} || 'x') WHERE {n} > 0"),
        Place(name: "trigger", setup: "CREATE TABLE t (a);", statement: "CREATE TRIGGER {n} AFTER INSERT ON t BEGIN SELECT 1; END"),
        Place(name: "trigger's table and columns", setup: "CREATE TABLE {q} ({q}, b); CREATE TABLE log (x);",
              statement: "CREATE TRIGGER g AFTER UPDATE OF b, {n} ON {n} FOR EACH ROW WHEN new.{n} > 0 BEGIN INSERT INTO log (x) VALUES (old.{n}); END"),
        Place(name: "trigger's body", setup: "CREATE TABLE t (a); CREATE TABLE {q} ({q}, b);",
              statement: "CREATE TRIGGER g AFTER INSERT ON t BEGIN INSERT INTO {n} ({n}, b) VALUES (1, 2); UPDATE {n} SET {n} = {n} + 1, b = 0 WHERE {n} > 0; DELETE FROM {n} WHERE {n} IS NULL; END"),
        Place(name: "view", setup: "CREATE TABLE t (a);", statement: "CREATE VIEW {n} AS SELECT a FROM t"),
        Place(name: "view's columns", setup: "CREATE TABLE t (a);", statement: "CREATE VIEW v ({n}) AS SELECT a FROM t"),
        Place(name: "view's select", setup: "CREATE TABLE {q} ({q}, b);",
              statement: "CREATE VIEW v AS SELECT {n}, {n}.{n} AS x, b AS {n} FROM {n} WHERE {n} > 0 ORDER BY {n}"),
        Place(name: "view's join", setup: "CREATE TABLE t (a); CREATE TABLE {q} ({q}, b);",
              statement: "CREATE VIEW v AS SELECT t.a FROM t JOIN {n} ON t.a = {n}.{n}, {n} AS y"),
    ]

    /// How a name may be written: bare, as a quoted identifier, or as a string, which
    /// SQLite reads as a name where a name stands.
    static let spellings: [(name: String, spell: @Sendable (String) -> String)] = [
        ("bare", { $0 }), ("double quotes", { "\"\($0)\"" }), ("single quotes", { "'\($0)'" }),
    ]
    /// The other quotes SQLite reads exactly as double quotes: their canonical text must
    /// be the double-quoted spelling's.
    static let otherQuotes: [(name: String, spell: @Sendable (String) -> String)] = [("brackets", { "[\($0)]" }), ("backticks", { "`\($0)`" })]

    @Test func aNameHasOneCanonicalSpellingQuotedOrNot() throws {
        var problems: [String] = []
        var meanings: [String: Int?] = [:]
        func meaning(_ setup: String, _ statement: String) throws -> Int? {
            if let known = meanings[setup + statement] { return known }
            let found = try Self.meaning(of: setup, statement)
            meanings[setup + statement] = found
            return found
        }
        var taken = 0
        for word in Self.words {
            for place in Self.places {
                let setup = place.setup.replacingOccurrences(of: "{q}", with: "\"\(word)\"")
                func statement(_ spell: (String) -> String) -> String {
                    place.statement.replacingOccurrences(of: "{n}", with: spell(word))
                }
                var outcomes: [(spelling: String, canonical: String, meaning: Int)] = []
                for spelling in Self.spellings {
                    let written = statement(spelling.spell)
                    guard let meant = try meaning(setup, written) else { continue }
                    taken += 1
                    let canonical = SQLCanonicalText.canonical(written)
                    if try meaning(setup, canonical) != meant {
                        problems.append("\(word) as \(place.name): the canonical text of\n  \(written)\n  \(canonical)\nis not taken, or means something else")
                    }
                    // A dump replayed and dumped again is the same dump.
                    if SQLCanonicalText.canonical(canonical) != canonical {
                        problems.append("\(word) as \(place.name): the canonical text of\n  \(canonical)\nis\n  \(SQLCanonicalText.canonical(canonical))")
                    }
                    outcomes.append((spelling.name, canonical, meant))
                }
                for (index, one) in outcomes.enumerated() {
                    for other in outcomes[(index + 1)...] where (one.meaning == other.meaning) != (one.canonical == other.canonical) {
                        let relation = one.meaning == other.meaning ? "mean the same, spelled apart" : "mean different things, spelled alike"
                        problems.append("\(word) as \(place.name), \(one.spelling) and \(other.spelling) \(relation):\n  \(one.canonical)\n  \(other.canonical)")
                    }
                }
                if let quoted = outcomes.first(where: { $0.spelling == "double quotes" }) {
                    for quotes in Self.otherQuotes where SQLCanonicalText.canonical(statement(quotes.spell)) != quoted.canonical {
                        problems.append("\(word) as \(place.name), \(quotes.name) and double quotes spelled apart:\n  \(SQLCanonicalText.canonical(statement(quotes.spell)))\n  \(quoted.canonical)")
                    }
                }
            }
        }
        // The judge took most spellings: the places are SQL it reads.
        #expect(taken > Self.words.count * Self.places.count * 2, "\(taken)")
        if !problems.isEmpty {
            Issue.record("\(problems.count) problems, the first:\n\(problems.prefix(30).joined(separator: "\n"))")
        }
    }

    /// What a schema means to the linked SQLite, made by `setup` and `statement` on an
    /// empty database, as a digest; nil when SQLite refuses them. Its objects, their
    /// columns, index columns and foreign keys, and the programs SQLite compiles to write
    /// each table and read each view (which hold every check, default, index expression
    /// and trigger body, a column, a function and a literal each its own instruction).
    /// Through SQLite's C interface, digested as read: the judge is asked some ten
    /// thousand times.
    static func meaning(of setup: String, _ statement: String) throws -> Int? {
        var db: OpaquePointer?
        guard sqlite3_open(":memory:", &db) == SQLITE_OK else { throw Failure(message: "no in-memory database") }
        defer { sqlite3_close(db) }
        guard sqlite3_exec(db, setup, nil, nil, nil) == SQLITE_OK, sqlite3_exec(db, statement, nil, nil, nil) == SQLITE_OK else { return nil }
        var digest = Hasher()
        /// Each row of `sql` into the digest, but for the columns `skipped` says to leave
        /// out of it; `body` sees the row's first columns as text.
        func read(_ sql: String, skipping skipped: (UnsafePointer<UInt8>?) -> Set<Int32> = { _ in [] },
                  each body: ([String]) -> Void = { _ in }) throws {
            var prepared: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &prepared, nil) == SQLITE_OK else {
                throw Failure(message: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
            }
            defer { sqlite3_finalize(prepared) }
            let count = sqlite3_column_count(prepared)
            while sqlite3_step(prepared) == SQLITE_ROW {
                let left = skipped(sqlite3_column_text(prepared, 1))
                for column in 0..<count where !left.contains(column) {
                    let bytes = sqlite3_column_text(prepared, column)
                    digest.combine(bytes: UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(prepared, column))))
                    digest.combine(0 as UInt8)
                }
                body((0..<min(count, 3)).map { sqlite3_column_text(prepared, $0).map { String(cString: $0) } ?? "" })
            }
        }
        // EXPLAIN's rows: an instruction and its operands, leaving out its address, its
        // comment, and the text operand where that is a subprogram's pointer, the SQL a
        // program is traced with, or an error's message (which quotes a CHECK as
        // written): none says what the program does.
        let wordless = ["Init", "Trace", "Program", "Halt", "HaltIfNull"].map { Array($0.utf8) }
        let explained: (UnsafePointer<UInt8>?) -> Set<Int32> = { opcode in
            guard let opcode else { return [0, 7] }
            let name = Array(UnsafeBufferPointer(start: opcode, count: strlen(opcode)))
            return wordless.contains(name) ? [0, 5, 7] : [0, 7]
        }
        var objects: [[String]] = []
        try read("SELECT type, name, tbl_name FROM sqlite_master ORDER BY type, name", each: { objects.append($0) })
        let hasTriggers = objects.contains { $0[0] == "trigger" }
        for object in objects {
            let quoted = quoteIdentifier(object[1])
            switch object[0] {
            case "table":
                var columns: [String] = []
                try read("PRAGMA table_info(\(quoted))", each: { columns.append(quoteIdentifier($0[1])) })
                try read("PRAGMA foreign_key_list(\(quoted))")
                try read("EXPLAIN INSERT INTO \(quoted) DEFAULT VALUES", skipping: explained)
                if hasTriggers {
                    try read("EXPLAIN UPDATE \(quoted) SET " + columns.map { "\($0) = \($0)" }.joined(separator: ", "), skipping: explained)
                }
            case "index":
                try read("PRAGMA index_xinfo(\(quoted))")
            case "view":
                try read("PRAGMA table_info(\(quoted))")
                try read("EXPLAIN SELECT * FROM \(quoted)", skipping: explained)
            default:
                break
            }
        }
        return digest.finalize()
    }

    struct Failure: Error {
        let message: String
    }
}
