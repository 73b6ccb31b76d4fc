import Foundation

/// One spelling for every way of writing the same SQL statement, so that equal schemas
/// give byte-identical text: what `schema-dump` prints and what `check` compares.
///
/// SQLite keeps each object's SQL as it was written, and the same table can be written
/// many ways: `CREATE TABLE t` by hand, `CREATE TABLE "t"` after a 12-step rename,
/// another case, other spacing, comments. The canonical form drops comments, puts one
/// space between tokens (none inside parentheses and before commas), writes SQL
/// keywords in upper case and names in lower case (SQLite compares names without
/// regard to ASCII case), and quotes a name only when it must be quoted (a keyword, or
/// characters a bare name cannot hold), always with double quotes. String literals,
/// blobs and numbers are kept exactly.
package enum SQLCanonicalText {
    package static func canonical(_ sql: String) -> String {
        var result = ""
        var previous: SQLToken?
        let tokens = SQLTokenizer.tokenize(sql).filter { !$0.isTrivia }
        // The `;` that ends the statement goes (the dump adds its own); those inside a
        // trigger's body stay, or the dump would not be SQL the sqlite3 shell can run.
        let end = tokens.lastIndex { !$0.isSymbol(";") }.map { $0 + 1 } ?? 0
        for token in tokens[..<end] {
            if token.isSymbol(";"), previous?.isSymbol(";") ?? true { continue }
            let text = spelling(of: token, after: previous)
            if let previous, needsSpace(between: previous, and: token) { result += " " }
            result += text
            previous = token
        }
        return result
    }

    /// - Parameter previous: the token before, which tells a word SQLite does not reserve
    ///   (`text`, `integer`) used as a name from the same word used as a type.
    private static func spelling(of token: SQLToken, after previous: SQLToken?) -> String {
        switch token.kind {
        case .word:
            let upper = token.text.uppercased()
            if unreserved.contains(upper), let previous, isNamePosition(after: previous) { return token.text.lowercased() }
            return keywords.contains(upper) ? upper : token.text.lowercased()
        case .quotedIdentifier:
            let name = token.nameValue ?? token.text
            if isBareName(name), !keywords.contains(name.uppercased()) { return name.lowercased() }
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

    /// Where a word can only be a name: first in a column list or after a comma (a
    /// column), after a `.`, or after the keyword that introduces a table's, index's,
    /// view's or trigger's name. A column named `text` stays `text`, its type `TEXT`.
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
    /// case where they are SQL, lower case where they are names (`isNamePosition`).
    static let unreserved: Set<String> = ["INTEGER", "TEXT", "REAL", "BLOB", "NUMERIC", "STRICT", "STORED"]
}

