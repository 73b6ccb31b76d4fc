@testable import MigrationKit
import Testing

@Suite struct SQLStatementSplitterTests {
    private func texts(_ sql: String) -> [String] {
        SQLStatementSplitter.split(sql).map(\.text)
    }

    @Test func splitsOnSemicolonsOutsideLiteralsAndComments() {
        let sql = """
        CREATE TABLE t (a TEXT DEFAULT ';');
        INSERT INTO "x;y" VALUES ('a;b'); -- c; d
        /* e; f */ SELECT [g;h], `i;j`
        """
        #expect(texts(sql) == [
            "CREATE TABLE t (a TEXT DEFAULT ';')",
            "INSERT INTO \"x;y\" VALUES ('a;b')",
            "SELECT [g;h], `i;j`",
        ])
        let statements = SQLStatementSplitter.split(sql)
        #expect(statements.map(\.startLine) == [1, 2, 3])
        #expect(statements.map(\.isTerminated) == [true, true, false])
        #expect(statements[1].tokens.map(\.text) == ["INSERT", "INTO", "\"x;y\"", "VALUES", "(", "'a;b'", ")"])
    }

    @Test func emptyStatementsAndCommentOnlyTextYieldNothing() {
        #expect(SQLStatementSplitter.split(";;  ; -- only a comment\n/* and another */").isEmpty)
        #expect(SQLStatementSplitter.split("").isEmpty)
        #expect(texts("SELECT 1;;SELECT 2") == ["SELECT 1", "SELECT 2"])
    }

    @Test func commentsInsideAStatementStayInItsText() {
        #expect(texts("SELECT 1 /* one */ + 1; -- after") == ["SELECT 1 /* one */ + 1"])
    }

    @Test func startLineIsTheLineOfTheFirstToken() {
        let statements = SQLStatementSplitter.split("-- header\n\n  SELECT 1;\n/* x\n */ SELECT\n2;")
        #expect(statements.map(\.startLine) == [3, 5])
    }

    @Test func triggerBodyIsOneStatement() {
        let sql = """
        CREATE TRIGGER log_insert AFTER INSERT ON t
        BEGIN
            INSERT INTO log VALUES (new.id);
            UPDATE counts SET n = n + 1;
        END;
        SELECT 1;
        """
        let statements = SQLStatementSplitter.split(sql)
        #expect(statements.count == 2)
        #expect(statements[0].text.hasPrefix("CREATE TRIGGER"))
        #expect(statements[0].text.hasSuffix("END"))
        #expect(statements[0].isTerminated)
        #expect(statements[1].text == "SELECT 1")
        #expect(statements[1].startLine == 6)
    }

    @Test func caseEndInsideATriggerDoesNotEndTheBody() {
        let sql = """
        CREATE TEMP TRIGGER t1 AFTER UPDATE ON t BEGIN
            UPDATE t SET a = CASE WHEN new.b THEN 1 ELSE 0 END;
            SELECT CASE x WHEN 1 THEN 'END' END FROM t;
        END;
        CREATE TEMPORARY TRIGGER t2 BEFORE DELETE ON t BEGIN SELECT RAISE(ABORT, 'no'); END;
        DROP TABLE x
        """
        let statements = SQLStatementSplitter.split(sql)
        #expect(statements.count == 3)
        #expect(statements[0].tokens.filter { $0.text == ";" }.count == 2)
        #expect(statements[1].text.hasPrefix("CREATE TEMPORARY TRIGGER t2"))
        #expect(statements[2].text == "DROP TABLE x")
        #expect(!statements[2].isTerminated)
    }

    @Test func explainCreateTriggerIsStillATrigger() {
        let statements = SQLStatementSplitter.split("EXPLAIN CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT 1; END; SELECT 2;")
        #expect(statements.map(\.text) == ["EXPLAIN CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT 1; END", "SELECT 2"])
    }

    @Test func triggerWordsElsewhereDoNotOpenATrigger() {
        // `trigger` as a name, TEMP after other words, quoted "TRIGGER": all ordinary.
        #expect(texts("CREATE TABLE trigger (a); SELECT 1;").count == 2)
        #expect(texts("CREATE \"TRIGGER\" x; SELECT 1;").count == 2)
        #expect(texts("SELECT * FROM t WHERE a = 'CREATE TRIGGER'; SELECT 2;").count == 2)
        #expect(texts("CREATE TEMP TABLE x (a); SELECT 2;").count == 2)
        #expect(texts("SELECT end FROM t; SELECT 2;").count == 2)
    }

    @Test func anUnfinishedTriggerRunsToTheEnd() {
        let statements = SQLStatementSplitter.split("CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT 1; SELECT 2;")
        #expect(statements.count == 1)
        #expect(!statements[0].isTerminated)
        // `; END` without the final `;`: still one statement, not terminated.
        let ended = SQLStatementSplitter.split("CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT 1; END")
        #expect(ended.count == 1)
        #expect(!ended[0].isTerminated)
        #expect(ended[0].tokens.last?.text == "END")
    }

    @Test func aHugeStatementDoesNotInflateTheOnesAfterIt() {
        // Each statement owns a buffer sized to itself, or memory grows with
        // (largest statement × statement count).
        let sql = "SELECT " + String(repeating: "1 + ", count: 20_000) + "1;" + String(repeating: "SELECT 2;", count: 100)
        let statements = SQLStatementSplitter.split(sql)
        #expect(statements.count == 101)
        #expect(statements.dropFirst().allSatisfy { $0.tokens.count == 2 && $0.tokens.capacity < 64 })
    }

    @Test func semicolonInsideAnUnterminatedLiteralDoesNotSplit() {
        #expect(texts("SELECT 'a; SELECT 2;") == ["SELECT 'a; SELECT 2;"])
        #expect(texts("SELECT 1 /* ; SELECT 2;") == ["SELECT 1"])
    }
}
