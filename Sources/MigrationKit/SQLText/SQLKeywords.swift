/// SQLite's keywords, and where a name spelled as one must be quoted: the one table the
/// canonical text (`SQLCanonicalText`) reads to write every name bare unless SQLite needs
/// it quoted there.
///
/// A table rather than a question to the linked SQLite, because the canonical text must
/// not depend on which SQLite made or reads a schema: a dump made on SQLCipher 3.4.1's
/// SQLite 3.15.2 and one made on SQLCipher 4.6.1's SQLite 3.46.1 must compare equal. The
/// linked SQLite could only say whether a word is a keyword (`sqlite3_keyword_check`,
/// from 3.24 only), not whether its grammar takes the word bare as a name in a given
/// place, and that differs by place (`IF` before a table's name, `CAST` where an
/// expression starts) and by release (`RETURNING` is a plain name before 3.35). So a
/// name is written bare only where every supported SQLite reads it bare as that same
/// name, and quoted wherever one of them would not. The keyword test of
/// `MigrationKitSQLCipherTests` checks the table against the linked SQLite, on both
/// platforms, in every place a name stands.
enum SQLKeywords {
    /// Every keyword of SQLite's (sqlite.org/lang_keywords.html), written in upper case
    /// by the canonical text wherever it is not a name.
    static let all: Set<String> = [
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
    ]

    /// Type and table-option words SQLite does not reserve but every schema spells:
    /// written in upper case where they are SQL, as written where they are names.
    static let typeWords: Set<String> = ["INTEGER", "TEXT", "REAL", "BLOB", "NUMERIC", "STRICT", "STORED"]

    /// The keywords SQLite never reads bare as a name, on any supported release: those
    /// outside its grammar's `%fallback ID` list and the keyword classes it also takes
    /// as names (`JOIN_KW`, `LIKE_KW`, `CTIME_KW`, and `INDEXED`, `WINDOW`, `OVER`,
    /// `FILTER`, which its tokenizer reads as names by context). A name spelled as one
    /// is always quoted; the bare word is always the keyword.
    static let reserved: Set<String> = [
        "ADD", "ALL", "ALTER", "AND", "AS", "AUTOINCREMENT", "BETWEEN", "CASE", "CHECK", "COLLATE", "COMMIT",
        "CONSTRAINT", "CREATE", "DEFAULT", "DEFERRABLE", "DELETE", "DISTINCT", "DROP", "ELSE", "ESCAPE", "EXCEPT",
        "EXISTS", "FOREIGN", "FROM", "GROUP", "HAVING", "IN", "INDEX", "INSERT", "INTERSECT", "INTO", "IS", "ISNULL",
        "JOIN", "LIMIT", "NOT", "NOTNULL", "NULL", "ON", "OR", "ORDER", "PRIMARY", "REFERENCES", "SELECT", "SET",
        "TABLE", "THEN", "TO", "TRANSACTION", "UNION", "UNIQUE", "UPDATE", "USING", "VALUES", "WHEN", "WHERE",
    ]

    /// Keywords a newer SQLite reserves that SQLite 3.15.2 reads as plain names:
    /// `NOTHING` (3.24, `DO NOTHING`) and `RETURNING` (3.35). A schema made there may
    /// name a column so, bare; its canonical text quotes the name, which both read.
    static let reservedSinceOldestSupported: Set<String> = ["NOTHING", "RETURNING"]

    /// Keywords that begin an expression (`CAST(…)`, `RAISE(…)`, `CURRENT_TIMESTAMP`):
    /// bare, they are names only where no expression may stand (a column's definition,
    /// after a `.`), so where one may, a name spelled so is quoted.
    static let expressionKeywords: Set<String> = ["CAST", "RAISE", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP"]

    /// Whether `name` must be quoted to be read as that name in `position`: it is not
    /// letters, digits and `_` (not starting with a digit), or a keyword SQLite would
    /// read there instead of a name. Non-ASCII letters are quoted too, which every
    /// SQLite reads alike.
    static func needsQuotes(_ name: String, in position: SQLNamePositions.Position) -> Bool {
        guard isBareName(name) else { return true }
        let upper = name.uppercased()
        if reserved.contains(upper) || reservedSinceOldestSupported.contains(upper) { return true }
        switch position {
        case .expression: return expressionKeywords.contains(upper)
        // `CREATE TABLE if (…)` reads `IF` as `IF NOT EXISTS`'s.
        case .objectName: return upper == "IF"
        case .name: return false
        case .other: return all.contains(upper) || typeWords.contains(upper)
        }
    }

    /// Letters, digits and `_`, not starting with a digit: a name SQLite reads unquoted.
    static func isBareName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }
}
