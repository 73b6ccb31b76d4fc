/// Splits SQL text into statements where SQLite would: at each `;` outside strings,
/// quoted identifiers and comments, except inside a `CREATE TRIGGER … BEGIN … END`.
///
/// Trigger bodies hold statements of their own, so their `;` do not end the outer
/// statement. Like `sqlite3_complete()` (SQLite's `complete.c`), a trigger ends only
/// at the sequence `; END ;`: an `END` that closes a `CASE` follows an expression,
/// never a `;`, so it cannot end the body early. Empty statements (`;;`) and
/// sections holding only comments yield nothing.
package enum SQLStatementSplitter {
    package static func split(_ sql: String) -> [SQLStatement] {
        var statements: [SQLStatement] = []
        var tracker = TriggerAwareEndTracker()
        var current: [SQLToken] = []
        let bytes = Array(sql.utf8)
        for token in SQLTokenizer(sql) where !token.isTrivia {
            let endsStatement = tracker.consume(token)
            if endsStatement {
                if !current.isEmpty { statements.append(statement(current, in: bytes, terminated: true)) }
                // A fresh array, not removeAll(keepingCapacity:): the statement keeps the
                // old buffer, and every later one would be allocated as large as it.
                current = []
            } else {
                current.append(token)
            }
        }
        if !current.isEmpty { statements.append(statement(current, in: bytes, terminated: false)) }
        return statements
    }

    /// Whether `sql` holds at least one statement: `split(sql)` is not empty. Blanks,
    /// comments and `;` alone hold none. Stops at the first token that starts one,
    /// without cutting statements (every file's sections are asked at every load).
    static func holdsStatement(_ sql: String) -> Bool {
        SQLTokenizer(sql).contains { !$0.isTrivia && !$0.isSymbol(";") }
    }

    private static func statement(_ tokens: [SQLToken], in bytes: [UInt8], terminated: Bool) -> SQLStatement {
        // `tokens` is never empty here; fall back to an empty text rather than trap.
        guard let first = tokens.first, let last = tokens.last else {
            return SQLStatement(tokens: tokens, text: "", startLine: 1, isTerminated: terminated)
        }
        let lower = min(first.offset, bytes.count)
        let upper = min(max(last.offset + last.text.utf8.count, lower), bytes.count)
        let text = String(decoding: bytes[lower..<upper], as: UTF8.self)
        return SQLStatement(tokens: tokens, text: text, startLine: first.line, isTerminated: terminated)
    }
}

/// The state machine of SQLite's `sqlite3_complete()`, fed one non-trivia token at a
/// time: it knows whether a `;` ends the statement or sits inside a trigger body.
struct TriggerAwareEndTracker {
    private enum State {
        /// Between statements.
        case start
        /// Inside an ordinary statement, which the next `;` ends.
        case normal
        /// After a leading `EXPLAIN` (a `CREATE TRIGGER` may still follow).
        case explain
        /// After a leading `CREATE` (and maybe `TEMP`): `TRIGGER` may follow.
        case create
        /// Inside a trigger, which only `; END ;` ends.
        case trigger
        /// Inside a trigger, right after a `;`.
        case triggerSemicolon
        /// Inside a trigger, right after `; END`.
        case triggerEnd
    }

    private enum Input {
        case semicolon, explain, create, temp, trigger, end, other
    }

    private var state = State.start

    /// Feeds the next non-trivia token; true when it is the `;` ending a statement.
    mutating func consume(_ token: SQLToken) -> Bool {
        state = Self.transition(from: state, on: Self.classify(token))
        return state == .start
    }

    private static func classify(_ token: SQLToken) -> Input {
        if token.kind == .punctuation, token.text == ";" { return .semicolon }
        guard token.kind == .word else { return .other }
        if token.isWord("CREATE") { return .create }
        if token.isWord("TEMP") || token.isWord("TEMPORARY") { return .temp }
        if token.isWord("TRIGGER") { return .trigger }
        if token.isWord("END") { return .end }
        if token.isWord("EXPLAIN") { return .explain }
        return .other
    }

    /// `complete.c`'s transition table (its NOTHING and START states merge here,
    /// since whitespace never reaches the tracker).
    private static func transition(from state: State, on input: Input) -> State {
        switch (state, input) {
        case (.trigger, .semicolon), (.triggerSemicolon, .semicolon):
            return .triggerSemicolon
        case (.triggerSemicolon, .end):
            return .triggerEnd
        case (.trigger, _), (.triggerSemicolon, _), (.triggerEnd, .other), (.triggerEnd, .explain),
             (.triggerEnd, .create), (.triggerEnd, .temp), (.triggerEnd, .trigger), (.triggerEnd, .end):
            return .trigger
        case (_, .semicolon):
            return .start
        case (.start, .explain):
            return .explain
        case (.start, .create), (.explain, .create):
            return .create
        case (.explain, .other):
            return .explain
        case (.create, .temp):
            return .create
        case (.create, .trigger):
            return .trigger
        default:
            return .normal
        }
    }
}
