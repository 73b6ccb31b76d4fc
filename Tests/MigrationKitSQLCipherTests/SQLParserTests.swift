@testable import MigrationKit
import Testing
@testable import MigrationKitSQLCipher

/// Lint's syntax check on the linked SQLite, for the two statements SQLite reads a
/// table name of before their end.
@Suite struct SQLParserTests {
    @Test func theNameLookedUpFirstIsReplacedWhereverItIsWritten() {
        #expect(SQLParser.naming("p", insteadOfTheTableIn: "ALTER TABLE books ADD COLUMN stars INTEGER")
            == "ALTER TABLE p ADD COLUMN stars INTEGER")
        #expect(SQLParser.naming("p", insteadOfTheTableIn: "alter table main . \"my books\" rename to b2")
            == "alter table p rename to b2")
        #expect(SQLParser.naming("p", insteadOfTheTableIn: "CREATE TEMP TRIGGER t AFTER UPDATE OF a, b ON books BEGIN SELECT 1; END")
            == "CREATE TEMP TRIGGER t AFTER UPDATE OF a, b ON p BEGIN SELECT 1; END")
        #expect(SQLParser.naming("p", insteadOfTheTableIn: "CREATE TRIGGER /* on */ t BEFORE DELETE ON main.books BEGIN SELECT 1; END")
            == "CREATE TRIGGER /* on */ t BEFORE DELETE ON p BEGIN SELECT 1; END")
        #expect(SQLParser.naming("p", insteadOfTheTableIn: "CREATE INDEX i ON books(a)") == nil)
        #expect(SQLParser.naming("p", insteadOfTheTableIn: "CREATE TABLE t (a)") == nil)
    }

    /// The statements name tables no earlier statement made: what follows the name is
    /// still read, a mistake there found, and said where SQLite says it is.
    @Test func aTableMissingFromTheBatchHidesNoMistakeBehindIt() throws {
        let parser = SQLParser()
        #expect(parser.problem(of: "ALTER TABLE reviews ADD COLUMN stars INTEGER CHECK (stars BETWEEN 0 AND 5)") == nil)
        #expect(parser.problem(of: "CREATE TRIGGER touch AFTER INSERT ON reviews BEGIN UPDATE books SET a = 1; END") == nil)
        let column = "ALTER TABLE ratings ADD COLUMN stars INTEGER CHECK (stars BETWEEN 0 AND 5;"
        let columnProblem = try #require(parser.problem(of: column))
        #expect(columnProblem.message == "near \";\": syntax error")
        #expect(columnProblem.offset == column.utf8.count - 1)
        let trigger = "CREATE TRIGGER touch2 AFTER INSERT ON notes BEGIN UPDATE books SET a = 1 END"
        let triggerProblem = try #require(parser.problem(of: trigger))
        #expect(triggerProblem.message == "near \"END\": syntax error")
        #expect(triggerProblem.offset == trigger.utf8.count - 3)
    }
}
