/// One SQL statement of a section, as `SQLStatementSplitter` cut it.
package struct SQLStatement: Hashable, Sendable {
    /// The statement's tokens without whitespace and comments, and without the `;`
    /// that ends it. Never empty. A trigger's inner `;` tokens are included.
    package let tokens: [SQLToken]
    /// The source text from the first token through the last (comments between
    /// tokens included, the terminating `;` not).
    package let text: String
    /// 1-based line, within the split text, of the statement's first token.
    package let startLine: Int
    /// Whether a `;` ended it. The last statement of a section may lack one: SQLite
    /// runs it all the same.
    package let isTerminated: Bool

    init(tokens: [SQLToken], text: String, startLine: Int, isTerminated: Bool) {
        self.tokens = tokens
        self.text = text
        self.startLine = startLine
        self.isTerminated = isTerminated
    }

    /// The line, within the split text, of the UTF-8 `offset` into `text`.
    package func line(atOffset offset: Int) -> Int {
        startLine + text.utf8.prefix(offset).lazy.filter { $0 == UInt8(ascii: "\n") }.count
    }
}
