import MigrationKit

/// Runs one input through everything that reads migration text: the tokenizer, the
/// splitter, the dbmate section parser and the linter. Used by both the libFuzzer
/// entry point and the replay tool, so a crash found by one replays in the other.
///
/// Besides "does not trap", it checks the tokenizer's contract and stops the process
/// when it breaks, which is what makes libFuzzer keep the input.
enum FuzzHarness {
    static let contexts = [
        LintContext(sqliteVersion: SQLiteVersion(3, 15, 2), libraryDescription: "SQLCipher 3.4.1 (SQLite 3.15.2)"),
        LintContext(sqliteVersion: SQLiteVersion(3, 46, 1), libraryDescription: "SQLCipher 4.6.1 (SQLite 3.46.1)",
                    rowCount: { $0.utf8.count % 3 == 0 ? nil : $0.utf8.count % 3 - 1 },
                    viewsReferencing: { $0.isEmpty ? [] : ["v_" + $0] }),
    ]

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        checkTokens(of: text)
        checkStatements(of: text)
        let up = SQLSection(sql: text, path: "fuzz.up.sql", startLine: 1)
        var files = [SQLMigrationFile(identifier: "fuzz", form: .upDownFiles, up: up, down: nil)]
        if let parsed = try? SQLMigrationFileParser.parseSections(text, identifier: "fuzz_sections", path: "fuzz.sql") {
            files.append(parsed)
        }
        for context in contexts {
            for finding in MigrationLinter(context: context).lint(files) {
                require(finding.line >= 1 && !finding.message.isEmpty && !finding.fix.isEmpty, "bad finding \(finding)")
            }
        }
    }

    /// Token texts rebuild the input, offsets and positions only move forward.
    static func checkTokens(of text: String) {
        var rebuilt = ""
        var expectedOffset = 0
        var previous: SQLToken?
        for token in SQLTokenizer(text) {
            require(!token.text.isEmpty, "empty token at \(token.offset)")
            require(token.offset == expectedOffset, "token at \(token.offset), expected \(expectedOffset)")
            if let previous {
                require(token.line > previous.line || (token.line == previous.line && token.column > previous.column),
                        "position went backwards at \(token.offset)")
            }
            rebuilt += token.text
            expectedOffset += token.text.utf8.count
            previous = token
        }
        require(rebuilt == text, "tokens do not rebuild the input")
    }

    static func checkStatements(of text: String) {
        for statement in SQLStatementSplitter.split(text) {
            require(!statement.tokens.isEmpty && !statement.text.isEmpty, "empty statement")
            require(statement.tokens.allSatisfy { !$0.isTrivia }, "trivia in a statement")
            require(statement.startLine == statement.tokens[0].line, "start line")
        }
    }

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        // A broken contract is a finding: stop so libFuzzer keeps the input.
        fatalError(message())
    }
}
