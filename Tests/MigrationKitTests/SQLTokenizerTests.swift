@testable import MigrationKit
import Testing

@Suite struct SQLTokenizerTests {
    /// Non-trivia tokens as (kind, text) pairs, the shape most tests compare.
    private func code(_ sql: String) -> [(SQLToken.Kind, String)] {
        SQLTokenizer.tokenize(sql).filter { !$0.isTrivia }.map { ($0.kind, $0.text) }
    }

    private func kinds(_ sql: String) -> [SQLToken.Kind] {
        code(sql).map(\.0)
    }

    private func texts(_ sql: String) -> [String] {
        code(sql).map(\.1)
    }

    @Test func tokenTextsConcatenateBackToTheInput() {
        let sql = "CREATE TABLE \"a\"\"b\" (x TEXT DEFAULT 'it''s', y BLOB DEFAULT x'00ff') -- done\n/* c */;"
        #expect(SQLTokenizer.tokenize(sql).map(\.text).joined() == sql)
    }

    @Test func wordsKeepTheirSpellingAndMatchKeywordsCaseInsensitively() {
        let tokens = SQLTokenizer.tokenize("create Table users_2$x é")
            .filter { !$0.isTrivia }
        #expect(tokens.map(\.kind) == [.word, .word, .word, .word])
        #expect(tokens.map(\.text) == ["create", "Table", "users_2$x", "é"])
        #expect(tokens[0].isWord("CREATE"))
        #expect(tokens[1].isWord("TABLE"))
        #expect(!tokens[2].isWord("USERS"))
    }

    @Test func stringsWithDoubledQuotesAreOneToken() {
        #expect(code("'it''s' 'a;b' ''").map(\.1) == ["'it''s'", "'a;b'", "''"])
        #expect(kinds("'it''s' 'a;b' ''") == [.string, .string, .string])
        let token = SQLTokenizer.tokenize("'it''s'")[0]
        #expect(token.nameValue == "it's")
    }

    @Test func quotedIdentifiersInAllThreeStyles() {
        #expect(texts("\"a\"\"b\" `c``d` [e]]") == ["\"a\"\"b\"", "`c``d`", "[e]", "]"])
        #expect(kinds("\"x\" `y` [z]") == [.quotedIdentifier, .quotedIdentifier, .quotedIdentifier])
        let names = SQLTokenizer.tokenize("\"a\"\"b\" `c``d` [e f]").filter { !$0.isTrivia }.map(\.nameValue)
        #expect(names == ["a\"b", "c`d", "e f"])
    }

    @Test func blobLiterals() {
        #expect(code("x'00FF' X'' xylophone").map(\.0) == [.blob, .blob, .word])
    }

    @Test func numbersIncludingHexExponentsAndLeadingDot() {
        let sql = "42 0x1F 3.14 .5 1e10 2.5E-3 7. 12abc 0x"
        #expect(texts(sql) == ["42", "0x1F", "3.14", ".5", "1e10", "2.5E-3", "7.", "12abc", "0x"])
        #expect(kinds(sql) == [.number, .number, .number, .number, .number, .number, .number, .illegal, .illegal])
        // `1e` without digits is a number followed by... nothing: `e` is glued on, illegal.
        #expect(kinds("1e+") == [.illegal, .operator])
    }

    @Test func parameters() {
        let sql = "? ?12 :name @v $x $a::b $arr(1) : @"
        #expect(texts(sql) == ["?", "?12", ":name", "@v", "$x", "$a::b", "$arr(1)", ":", "@"])
        #expect(kinds(sql) == [.parameter, .parameter, .parameter, .parameter, .parameter, .parameter, .parameter, .illegal, .illegal])
    }

    @Test func operatorsTakeTheLongestMatch() {
        let sql = "|| | << >> <= >= == = != <> < > -> ->> - + * / % & ~"
        #expect(texts(sql) == sql.split(separator: " ").map(String.init))
        #expect(kinds(sql).allSatisfy { $0 == .operator })
        #expect(kinds("!") == [.illegal])
        #expect(texts("a->>'$.b'") == ["a", "->>", "'$.b'"])
    }

    @Test func punctuation() {
        #expect(kinds("( ) , ; .") == [.punctuation, .punctuation, .punctuation, .punctuation, .punctuation])
        #expect(texts("main.t") == ["main", ".", "t"])
    }

    @Test func commentsAreTriviaAndHideWhatTheyHold() {
        let tokens = SQLTokenizer.tokenize("a -- DROP TABLE x;\nb /* ; 'x */ c")
        #expect(tokens.filter(\.isTrivia).map(\.kind) == [.whitespace, .lineComment, .whitespace, .whitespace, .blockComment, .whitespace])
        #expect(texts("a -- DROP TABLE x;\nb /* ; 'x */ c") == ["a", "b", "c"])
        #expect(tokens[2].text == "-- DROP TABLE x;")
    }

    @Test func unterminatedTokensRunToTheEndAndSaySo() {
        for (sql, kind) in [("'abc", SQLToken.Kind.string), ("\"abc", .quotedIdentifier), ("`abc", .quotedIdentifier),
                            ("[abc", .quotedIdentifier), ("x'00", .blob), ("/* abc", .blockComment), ("'", .string),
                            ("/*", .blockComment), ("'it''", .string)] {
            let tokens = SQLTokenizer.tokenize("SELECT " + sql)
            let last = tokens.last
            #expect(last?.kind == kind, "\(sql)")
            #expect(last?.isUnterminated == true, "\(sql)")
            #expect(last?.text == sql, "\(sql)")
        }
        #expect(SQLTokenizer.tokenize("'ok'").first?.isUnterminated == false)
        // A line comment at the very end is complete, not unterminated.
        #expect(SQLTokenizer.tokenize("-- x").first?.isUnterminated == false)
    }

    @Test func linesAndColumnsAreOneBasedAndCountCharacters() {
        let tokens = SQLTokenizer.tokenize("SELECT\n  'é', x\r\n\tFROM t").filter { !$0.isTrivia }
        #expect(tokens.map(\.line) == [1, 2, 2, 2, 3, 3])
        #expect(tokens.map(\.column) == [1, 3, 6, 8, 2, 7])
        #expect(tokens.map(\.offset) == [0, 9, 13, 15, 19, 24])
    }

    @Test func multilineTokensMoveTheLineCounter() {
        let tokens = SQLTokenizer.tokenize("'a\nb' /* c\n\nd */ x").filter { !$0.isTrivia }
        #expect(tokens.map(\.line) == [1, 4])
    }

    @Test func oddBytesBecomeIllegalTokensNotTraps() {
        let sql = "a\u{0}b\u{1}c ^ { } \\"
        let tokens = SQLTokenizer.tokenize(sql)
        #expect(tokens.map(\.text).joined() == sql)
        #expect(kinds(sql) == [.word, .illegal, .word, .illegal, .word, .illegal, .illegal, .illegal, .illegal])
    }

    @Test func byteOrderMarkIsWhitespace() {
        #expect(texts("\u{FEFF}SELECT 1") == ["SELECT", "1"])
    }

    @Test func pathologicalInputsTokenizeInLinearTime() {
        let size = 200_000
        for unit in ["'", "\"", "[", "/*", "x'", "-", "--", "''", "a", "$", "(", "é", "*/", "\u{0}"] {
            let sql = String(repeating: unit, count: size / unit.utf8.count)
            let clock = ContinuousClock()
            let elapsed = clock.measure {
                #expect(SQLTokenizer.tokenize(sql).map(\.text).joined() == sql, "\(unit)")
            }
            #expect(elapsed < .seconds(5), "\(unit): \(elapsed)")
        }
    }
}
