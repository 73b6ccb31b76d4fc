@testable import MigrationKit
import MigrationKitTestSupport
import Testing

/// The canonical text's spelling of names and types, pinned statement by statement. It
/// decides by its own table (`SQLKeywords`), never by asking the linked SQLite, so a
/// dump made on SQLite 3.15.2 and one made on 3.46.1 compare equal; the keyword test
/// of `MigrationKitSQLCipherTests` holds the table to each SQLite's own judgement.
@Suite struct SQLCanonicalTextTests {
    /// Every way of quoting a column SQLite reads bare gives the bare name; a name
    /// SQLite needs quoted where it stands is quoted, whichever quotes it came in.
    @Test func aNameIsBareUnlessSQLiteNeedsItQuotedWhereItStands() {
        #expect(SQLCanonicalText.canonical("""
            create table "events" ("query" text, [key] TEXT, `action` text, 'filter' TEXT, row, "temp" integer,
                [primary] TEXT, "my name" TEXT, cast TEXT, "current_date" TEXT, window TEXT)
            """) == #"CREATE TABLE events (query TEXT, key TEXT, action TEXT, filter TEXT, row, temp INTEGER, "primary" TEXT, "my name" TEXT, cast TEXT, current_date TEXT, window TEXT)"#)
        // Where an expression may begin, `CAST` and `CURRENT_DATE` are SQLite's own:
        // the columns are quoted there, the keyword is not.
        #expect(SQLCanonicalText.canonical(#"CREATE INDEX "if" ON events ([cast], "key" DESC, 'action') WHERE "current_date" < current_date"#)
            == #"CREATE INDEX "if" ON events ("cast", key DESC, action) WHERE "current_date" < CURRENT_DATE"#)
        #expect(SQLCanonicalText.canonical(#"CREATE VIEW "v" AS SELECT e."query" AS "key", [row] FROM "events" AS e WHERE 'query' = "filter""#)
            == #"CREATE VIEW v AS SELECT e.query AS key, row FROM events AS e WHERE 'query' = filter"#)
    }

    /// `RETURNING` and `NOTHING` are plain names to SQLite 3.15.2 and keywords to
    /// 3.46.1: a column of a schema made on the first is quoted, which both read, so the
    /// two SQLites' dumps of it are the same.
    @Test func aNameOnlyAnOlderSQLiteTakesBareIsQuoted() {
        #expect(SQLCanonicalText.canonical("CREATE TABLE jobs (returning TEXT, nothing INTEGER)")
            == #"CREATE TABLE jobs ("returning" TEXT, "nothing" INTEGER)"#)
        #expect(SQLCanonicalText.canonical(#"CREATE TABLE jobs ("returning" TEXT, [nothing] INTEGER)"#)
            == #"CREATE TABLE jobs ("returning" TEXT, "nothing" INTEGER)"#)
    }

    /// A type's arguments stand against its name, as SQLite's own spelling and the
    /// tools that read declared types have it.
    @Test func aTypeKeepsSQLitesSpelling() {
        #expect(SQLCanonicalText.canonical("CREATE TABLE t (name varchar ( 255 ) not null, price DECIMAL (10,2), note TEXT CHECK (length (note) < 10), n NUMERIC(3))")
            == "CREATE TABLE t (name varchar(255) NOT NULL, price DECIMAL(10, 2), note TEXT CHECK (length (note) < 10), n NUMERIC(3))")
        #expect(SQLCanonicalText.canonical("CREATE VIEW v AS SELECT CAST (a AS VARCHAR (10)) FROM t")
            == "CREATE VIEW v AS SELECT CAST (a AS VARCHAR(10)) FROM t")
    }

    /// Any text, however broken, has a canonical text, found without trapping: soups of
    /// the tokens that tell where a name stands, cut off anywhere.
    @Test func anyTextHasACanonicalText() {
        let vocabulary = [
            "CREATE", "TEMP", "UNIQUE", "VIRTUAL", "TABLE", "INDEX", "VIEW", "TRIGGER", "IF", "NOT", "EXISTS", "t", "\"q\"",
            "'s'", "[b]", "`c`", "(", ")", ",", ".", ";", "ON", "AS", "CAST", "SELECT", "FROM", "JOIN", "UPDATE", "OR", "SET",
            "OF", "INTO", "REFERENCES", "PRIMARY", "FOREIGN", "KEY", "CHECK", "DEFAULT", "VARCHAR", "1", "=", "BEGIN", "END",
            "WINDOW", "OVER", "RAISE", "USING", "CONSTRAINT", "DISTINCT", "MATERIALIZED", "x'00'", "-- c\n", "/* c",
        ]
        var generator = SeededGenerator(state: 0xCA_0071)
        var spelled = 0
        for _ in 0..<TestDepth.count(quick: 1_000, full: 5_000) {
            let text = (0..<Int.random(in: 0...40, using: &generator)).compactMap { _ in vocabulary.randomElement(using: &generator) }
                .joined(separator: " ")
            let canonical = SQLCanonicalText.canonical(text)
            _ = SQLCanonicalText.canonical(tableItem: text)
            if !canonical.isEmpty { spelled += 1 }
        }
        #expect(spelled > 0)
    }
}
