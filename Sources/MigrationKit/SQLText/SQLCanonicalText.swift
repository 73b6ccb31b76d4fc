import Foundation

/// One spelling for every way of writing the same SQL statement, so that equal schemas
/// give byte-identical text: what `schema-dump` prints and what `check` compares.
///
/// SQLite keeps each object's SQL as it was written, and the same table can be written
/// many ways: `CREATE TABLE t` by hand, `CREATE TABLE "t"` after a 12-step rename,
/// another case, other spacing, comments. The canonical form drops comments, puts one
/// space between tokens (none inside parentheses and before commas), writes SQL
/// keywords in upper case, and quotes a name only when it must be quoted (a keyword, or
/// characters a bare name cannot hold), always with double quotes. Names keep their
/// spelling, case included: SQLite compares them without regard to ASCII case, but
/// `PRAGMA table_info` and every row an app reads name a column as its `CREATE`
/// statement spells it, so `userId` and `userid` are different schemas to an app.
/// String literals, blobs and numbers are kept exactly, and so are a virtual table's
/// module arguments (`USING fts4(content="notes")`): the module parses them itself,
/// by rules of its own.
package enum SQLCanonicalText {
    package static func canonical(_ sql: String) -> String {
        var result = ""
        var previous: SQLToken?
        let all = SQLTokenizer.tokenize(sql)
        let code = all.indices.filter { !all[$0].isTrivia }
        // The `;` that ends the statement goes (the dump adds its own); those inside a
        // trigger's body stay, or the dump would not be SQL the sqlite3 shell can run.
        let end = code.lastIndex { !all[$0].isSymbol(";") }.map { $0 + 1 } ?? 0
        let arguments = moduleArguments(all, code[..<end])
        for position in code[..<end].indices {
            let token = all[code[position]]
            if let arguments, arguments.positions.contains(position) {
                if position == arguments.positions.lowerBound { result += arguments.text }
                continue
            }
            if token.isSymbol(";"), previous?.isSymbol(";") ?? true { continue }
            let text = spelling(of: token, after: previous)
            if let previous, needsSpace(between: previous, and: token) { result += " " }
            result += text
            previous = token
        }
        return result
    }

    /// For `CREATE VIRTUAL TABLE … USING module(…)`: the positions (in `code`) of the
    /// tokens between the parentheses, and their text as written, trimmed; nil for any
    /// other statement, or a module without arguments.
    private static func moduleArguments(_ all: [SQLToken], _ code: ArraySlice<Int>) -> (positions: Range<Int>, text: String)? {
        let start = code.startIndex
        guard code.count > 4, all[code[start]].isWord("CREATE"), all[code[start + 1]].isWord("VIRTUAL"),
              let using = code.firstIndex(where: { all[$0].isWord("USING") }),
              using + 2 < code.endIndex, all[code[using + 2]].isSymbol("("),
              let close = code.lastIndex(where: { all[$0].isSymbol(")") }), close > using + 3 else { return nil }
        let text = all[(code[using + 2] + 1)..<code[close]].map(\.text).joined().trimmingCharacters(in: .whitespacesAndNewlines)
        return ((using + 3)..<close, text)
    }

    /// - Parameter previous: the token before, which tells a word SQLite does not reserve
    ///   (`text`, `integer`) used as a name from the same word used as a type.
    private static func spelling(of token: SQLToken, after previous: SQLToken?) -> String {
        switch token.kind {
        case .word:
            let upper = token.text.uppercased()
            // A word SQLite lets be a name, where a name stands, may be either (`action
            // TEXT` is a column, `NO ACTION` a keyword): kept as written, which never
            // changes what it is.
            if usableAsNames.contains(upper), let previous, isNamePosition(after: previous) { return token.text }
            return keywords.contains(upper) ? upper : token.text
        case .quotedIdentifier:
            let name = token.nameValue ?? token.text
            if isBareName(name), !keywords.contains(name.uppercased()) { return name }
            return quoteIdentifier(name)
        default:
            return token.text
        }
    }

    private static func needsSpace(between left: SQLToken, and right: SQLToken) -> Bool {
        if left.isSymbol("(") || left.isSymbol(".") { return false }
        if right.isSymbol(")") || right.isSymbol(",") || right.isSymbol(".") || right.isSymbol(";") { return false }
        return true
    }

    /// Where a word may be a name: first in a column list or after a comma (a column),
    /// after a `.`, or after the keyword that introduces a table's, index's, view's or
    /// trigger's name. A column named `text` stays `text`, its type `TEXT`.
    private static func isNamePosition(after previous: SQLToken) -> Bool {
        if previous.isSymbol("(") || previous.isSymbol(",") || previous.isSymbol(".") { return true }
        guard previous.kind == .word else { return false }
        return ["TABLE", "INDEX", "VIEW", "TRIGGER", "ON", "REFERENCES", "INTO", "FROM", "JOIN", "EXISTS"].contains(previous.text.uppercased())
    }

    /// Letters, digits and `_`, not starting with a digit: a name SQLite reads unquoted.
    private static func isBareName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    /// SQLite's keywords (sqlite.org/lang_keywords.html).
    static let keywords: Set<String> = Set([
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
    ]).union(unreserved)

    /// Type and table-option words SQLite does not reserve but every schema spells: upper
    /// case where they are SQL, as written where they may be names (`isNamePosition`).
    static let unreserved: Set<String> = ["INTEGER", "TEXT", "REAL", "BLOB", "NUMERIC", "STRICT", "STORED"]

    /// The words a name may be spelled as, unquoted: `unreserved`, and the keywords
    /// SQLite's grammar lets stand for a name (its `%fallback ID` list, `JOIN_KW`, `ID`).
    static let usableAsNames: Set<String> = unreserved.union([
        "ABORT", "ACTION", "AFTER", "ANALYZE", "ASC", "ATTACH", "BEFORE", "BEGIN", "BY", "CASCADE", "CAST", "COLUMN",
        "CONFLICT", "DATABASE", "DEFERRED", "DESC", "DETACH", "DO", "EACH", "END", "EXCLUSIVE", "EXPLAIN", "FAIL", "FOR",
        "IGNORE", "IMMEDIATE", "INITIALLY", "INSTEAD", "LIKE", "GLOB", "REGEXP", "MATCH", "NO", "PLAN", "QUERY", "KEY",
        "OF", "OFFSET", "PRAGMA", "RAISE", "RECURSIVE", "RELEASE", "REPLACE", "RESTRICT", "ROW", "ROWS", "ROLLBACK",
        "SAVEPOINT", "TEMP", "TRIGGER", "VACUUM", "VIEW", "VIRTUAL", "WITH", "WITHOUT", "NULLS", "FIRST", "LAST",
        "CURRENT", "FOLLOWING", "PARTITION", "PRECEDING", "RANGE", "UNBOUNDED", "EXCLUDE", "GROUPS", "OTHERS", "TIES",
        "GENERATED", "ALWAYS", "MATERIALIZED", "REINDEX", "RENAME", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP",
        "IF", "CROSS", "FULL", "INNER", "LEFT", "NATURAL", "OUTER", "RIGHT",
    ])
}

