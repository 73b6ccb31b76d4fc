@testable import MigrationKit
import Testing

/// `SchemaDifference`, the core of drift, over `SQLQuerying` with no database: each side
/// is a `sqlite_master` as SQLite would list it.
@Suite struct SchemaDifferenceTests {
    /// The rows of `sqlite_master` (type, name, tbl_name, sql), served to `SchemaDump`.
    struct SchemaTable: SQLQuerying {
        let rows: [[String?]]

        func forEachTextRow(sql: String, arguments: [String], _ body: ([String?]) throws -> Void) throws {
            for row in rows { try body(row) }
        }
    }

    static let expected = SchemaTable(rows: [
        ["table", "authors", "authors", "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"],
        ["index", "authors_name", "authors", "CREATE INDEX authors_name ON authors(name)"],
        ["view", "names", "names", "CREATE VIEW names AS SELECT name FROM authors"],
        ["table", "grdb_migrations", "grdb_migrations", "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)"],
    ])

    @Test func theSameSchemaSpelledAnotherWayHasNoDifference() throws {
        let respelled = SchemaTable(rows: [
            ["view", "names", "names", "create view \"names\" as select name from authors"],
            ["index", "authors_name", "authors", "CREATE  INDEX authors_name ON \"authors\" ( name )"],
            ["table", "authors", "authors", "CREATE TABLE authors(id INTEGER PRIMARY KEY,name TEXT NOT NULL)"],
            // The ledger is bookkeeping, not schema: its absence is no difference.
        ])
        #expect(try SchemaDifference.between(expected: Self.expected, actual: respelled).isEmpty)
    }

    /// A name in another case is the same object to SQLite, another column to an app
    /// (`row["Name"]`): a change, named once.
    @Test func aNameInAnotherCaseIsAChange() throws {
        let recased = SchemaTable(rows: Self.expected.rows.map { row in
            row[1] == "authors" ? ["table", "Authors", "Authors", "CREATE TABLE Authors (id INTEGER PRIMARY KEY, Name TEXT NOT NULL)"] : row
        })
        let differences = try SchemaDifference.between(expected: Self.expected, actual: recased)
        #expect(differences.map(\.name) == ["Authors"] && differences.map(\.change) == [.changed], "\(differences)")
    }

    @Test func addedMissingAndChangedObjectsAreEachNamedInCanonicalOrder() throws {
        let drifted = SchemaTable(rows: [
            ["table", "authors", "authors", "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, nickname TEXT)"],
            ["trigger", "audit", "authors", "CREATE TRIGGER audit AFTER INSERT ON authors BEGIN SELECT 1; END"],
            ["index", "authors_nickname", "authors", "CREATE INDEX authors_nickname ON authors(nickname)"],
            ["index", "sqlite_autoindex_authors_1", "authors", nil],
        ])
        let differences = try SchemaDifference.between(expected: Self.expected, actual: drifted)
        #expect(differences.map { "\($0.type) \($0.name) \($0.change.rawValue)" }
            == ["table authors changed", "index authors_name missing", "index authors_nickname added",
                "view names missing", "trigger audit added"])
        let changed = try #require(differences.first)
        #expect(changed.expected == "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        #expect(changed.actual == "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, nickname TEXT)")
        #expect(differences[2].expected == nil && differences[1].actual == nil)
        #expect(differences[2].summary == "index authors_nickname: only in the database (CREATE INDEX authors_nickname ON authors (nickname))")
    }
}
