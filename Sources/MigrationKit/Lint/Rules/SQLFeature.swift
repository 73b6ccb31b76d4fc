/// A piece of SQL syntax, or a built-in function, that SQLite added in a known
/// release, with how to spot it in a statement and how to write it portably.
///
/// Versions come from sqlite.org's release history (releaselog/3_x_y.html), cited
/// next to each entry. Detection works on tokens, so text inside string literals,
/// quoted identifiers and comments never matches.
struct SQLFeature: Sendable {
    /// How messages name it, e.g. "ALTER TABLE … DROP COLUMN".
    let name: String
    let addedIn: SQLiteVersion
    /// The portable rewrite.
    let fix: String
    /// What a statement using the feature must mention, tested before `firstUse`.
    var cue: Cue = .always
    /// Index of the token where the statement first uses the feature, if it does.
    let firstUse: @Sendable (StatementReader) -> Int?
    /// For a feature that exists only in builds compiled with it: the compile option
    /// (`ENABLE_FTS5`, as `PRAGMA compile_options` lists it), and the release from
    /// which it is built in regardless (the JSON functions from 3.38.0), if any.
    var compileOption: String? = nil
    var builtInFrom: SQLiteVersion? = nil

    /// Whether a library of `version` with `options` (nil: unknown) has the feature:
    /// true, false, or nil when it depends on how the library was built.
    func isAvailable(in version: SQLiteVersion, options: Set<String>?) -> Bool? {
        guard addedIn <= version else { return false }
        guard let compileOption else { return true }
        if let builtInFrom, builtInFrom <= version { return true }
        return options.map { $0.contains(compileOption) }
    }

    /// Words a statement must contain for `firstUse` to find anything there. Lint
    /// checks every statement of a batch against every feature the library lacks (on
    /// SQLCipher 3.4.1, all of them), and `firstUse` walks the statement's tokens: the
    /// cue lets `features(cuedBy:)` pick the few worth that walk with one dictionary
    /// lookup per word of the statement.
    enum Cue: Sendable {
        /// At least one of these words (lowercased).
        case anyWord(Set<String>)
        /// A word starting with this (lowercased) prefix.
        case wordPrefix(String)
        /// No word is required: always search.
        case always

        static func words(_ words: String...) -> Cue { .anyWord(Set(words)) }
    }

    /// The catalog's features whose cue `statement` meets, in catalog order: only for
    /// these can `firstUse` find anything.
    static func features(cuedBy statement: StatementReader) -> [SQLFeature] {
        var cued = [Bool](repeating: false, count: catalog.count)
        for index in unworded { cued[index] = true }
        for word in statement.words {
            for index in byCueWord[word] ?? [] { cued[index] = true }
        }
        for (prefix, index) in byCuePrefix where statement.words.contains(where: { $0.hasPrefix(prefix) }) {
            cued[index] = true
        }
        return catalog.indices.compactMap { cued[$0] ? catalog[$0] : nil }
    }

    /// For each cue word, the indices in `catalog` of the features it cues.
    private static let byCueWord: [String: [Int]] = {
        var map: [String: [Int]] = [:]
        for (index, feature) in catalog.enumerated() {
            if case .anyWord(let words) = feature.cue {
                for word in words { map[word, default: []].append(index) }
            }
        }
        return map
    }()

    private static let byCuePrefix: [(prefix: String, index: Int)] = catalog.enumerated().compactMap { index, feature in
        if case .wordPrefix(let prefix) = feature.cue { return (prefix, index) }
        return nil
    }

    /// Features searched in every statement.
    private static let unworded: [Int] = catalog.indices.filter { index in
        if case .always = catalog[index].cue { return true }
        return false
    }

    static let twelveStep = "the 12-step procedure of sqlite.org/lang_altertable.html: CREATE TABLE new_t with the wanted columns, INSERT INTO new_t SELECT … FROM t, DROP TABLE t, ALTER TABLE new_t RENAME TO t, then recreate t's indexes, triggers and views"

    static let catalog: [SQLFeature] = syntax + functions + buildOptional

    /// Keywords that can follow a column alias; never a window name.
    static let clauseKeywords: Set<String> = [
        "from", "where", "group", "having", "order", "limit", "union", "except", "intersect", "window",
        "and", "or", "as", "on", "join", "end", "then", "else", "when", "using", "returning",
    ]

    // MARK: - Features other parts gate on

    // Named, so that what else depends on them (diff's migration plan, the verifier's
    // foreign-key check) reads the version from this catalog rather than a copy.

    // 3.25.0 added ALTER TABLE … RENAME COLUMN (the COLUMN keyword is optional).
    static let renameColumn = SQLFeature(name: "ALTER TABLE … RENAME COLUMN", addedIn: SQLiteVersion(3, 25, 0),
        fix: "Recreate the table with the new column name: \(twelveStep).",
        cue: .words("rename"),
        firstUse: { statement in
            guard case .alterTable(_, .renameColumn(let index)) = statement.shape else { return nil }
            return index
        })

    // 3.35.0: "Added support for ALTER TABLE DROP COLUMN".
    static let dropColumn = SQLFeature(name: "ALTER TABLE … DROP COLUMN", addedIn: SQLiteVersion(3, 35, 0),
        fix: "Recreate the table without the column: \(twelveStep).",
        cue: .words("drop"),
        firstUse: { statement in
            guard case .alterTable(_, .dropColumn(_, let index)) = statement.shape else { return nil }
            return index
        })

    // 3.16.0: "The table-valued functions for PRAGMA feature was added in SQLite
    // version 3.16.0" (sqlite.org/pragma.html#pragfunc).
    static let pragmaFunctions = SQLFeature(name: "PRAGMA table-valued functions (pragma_…())", addedIn: SQLiteVersion(3, 16, 0),
        fix: "Run the PRAGMA statement itself (PRAGMA table_info(t)) from the application, or query sqlite_master instead.",
        cue: .wordPrefix("pragma_"),
        firstUse: { statement in
            statement.firstIndex { index in
                guard let key = statement.wordKey(index), key.utf8.count > 7, key.hasPrefix("pragma_") else { return false }
                return statement.isSymbol(index + 1, "(") || statement.isWord(index - 1, "FROM") || statement.isWord(index - 1, "JOIN")
            }
        })

    // MARK: - Syntax

    static let syntax: [SQLFeature] = [
        // 3.23.0: "Recognize TRUE and FALSE as constants". Earlier versions read them
        // as column names, and after DEFAULT as text: on 3.15.2 `DEFAULT true`
        // silently stores the string 'true'. PRAGMA values have always accepted them.
        SQLFeature(name: "The TRUE and FALSE literals", addedIn: SQLiteVersion(3, 23, 0),
                   fix: "Write 1 and 0 instead (older versions read TRUE as a column name, and after DEFAULT silently store it as text).",
                   cue: .words("true", "false"),
                   firstUse: { statement in
                       guard !statement.isWord(0, "PRAGMA") else { return nil }
                       return statement.firstIndex { index in
                           (statement.isWord(index, "TRUE") || statement.isWord(index, "FALSE"))
                               && !statement.isSymbol(index - 1, ".") && !statement.isSymbol(index + 1, ".")
                       }
                   }),
        // 3.24.0 added UPSERT (sqlite.org/lang_upsert.html).
        SQLFeature(name: "UPSERT (INSERT … ON CONFLICT … DO …)", addedIn: SQLiteVersion(3, 24, 0),
                   fix: "Use INSERT OR IGNORE followed by an UPDATE of the same row (or INSERT OR REPLACE when replacing the whole row, with its delete side effects, is intended).",
                   cue: .words("conflict"),
                   firstUse: { statement in
                       statement.firstIndex { index in
                           statement.isWord(index, "ON") && statement.isWord(index + 1, "CONFLICT")
                               && (statement.isSymbol(index + 2, "(")
                                   || (statement.isWord(index + 2, "DO") && !statement.isWord(index + 3, "UPDATE")))
                       }
                   }),
        // 3.35.0: "The final ON CONFLICT clause may omit the conflict target and yet
        // still use DO UPDATE".
        SQLFeature(name: "UPSERT without a conflict target (ON CONFLICT DO UPDATE)", addedIn: SQLiteVersion(3, 35, 0),
                   fix: "Name the conflict target, ON CONFLICT (column, …) DO UPDATE (SQLite 3.24+), or use INSERT OR IGNORE followed by an UPDATE of the same row.",
                   cue: .words("conflict"),
                   firstUse: { statement in
                       statement.firstIndex { index in
                           statement.isWord(index, "ON") && statement.isWord(index + 1, "CONFLICT")
                               && statement.isWord(index + 2, "DO") && statement.isWord(index + 3, "UPDATE")
                       }
                   }),
        renameColumn,
        // 3.25.0 added window functions (sqlite.org/windowfunctions.html).
        SQLFeature(name: "Window functions (… OVER …)", addedIn: SQLiteVersion(3, 25, 0),
                   fix: "Rewrite with a correlated subquery or a self-join, for example a running total as (SELECT sum(x) FROM t AS u WHERE u.id <= t.id).",
                   cue: .words("over"),
                   firstUse: { statement in
                       // As SQLite decides: OVER is the keyword after `)` and before `(` or
                       // a window name; `sum(x) over FROM t` merely names a column "over".
                       statement.firstIndex { index in
                           guard statement.isWord(index, "OVER"), statement.isSymbol(index - 1, ")"),
                                 let next = statement.token(index + 1) else { return false }
                           if next.isSymbol("(") || next.kind == .quotedIdentifier { return true }
                           return next.kind == .word && !clauseKeywords.contains(statement.wordKey(index + 1) ?? "")
                       }
                   }),
        // 3.30.0: "Add support for the FILTER clause on aggregate functions".
        SQLFeature(name: "The FILTER clause on aggregate functions", addedIn: SQLiteVersion(3, 30, 0),
                   fix: "Move the condition into the aggregate: sum(CASE WHEN condition THEN x END), count(CASE WHEN condition THEN 1 END).",
                   cue: .words("filter"),
                   firstUse: { statement in
                       statement.firstIndex { index in
                           statement.isWord(index, "FILTER") && statement.isSymbol(index - 1, ")")
                               && statement.isSymbol(index + 1, "(") && statement.isWord(index + 2, "WHERE")
                       }
                   }),
        // 3.30.0: "Add support for the NULLS FIRST and NULLS LAST syntax in ORDER BY".
        SQLFeature(name: "NULLS FIRST / NULLS LAST in ORDER BY", addedIn: SQLiteVersion(3, 30, 0),
                   fix: "Sort on the NULL test first: ORDER BY x IS NULL, x for NULLS LAST; ORDER BY x IS NOT NULL, x for NULLS FIRST.",
                   cue: .words("nulls"),
                   firstUse: { statement in
                       statement.firstIndex { index in
                           statement.isWord(index, "NULLS") && (statement.isWord(index + 1, "FIRST") || statement.isWord(index + 1, "LAST"))
                       }
                   }),
        // 3.31.0: "Add support for generated columns".
        SQLFeature(name: "Generated columns (… AS (expression))", addedIn: SQLiteVersion(3, 31, 0),
                   fix: "Store the value in an ordinary column that the application or a trigger keeps up to date, or compute it in a view.",
                   cue: .words("generated", "as"),
                   firstUse: { statement in
                       let definitions: Range<Int>
                       switch statement.shape {
                       case .createTable(_, let columnList?, _, _): definitions = columnList
                       case .alterTable(_, .addColumn(let definition)): definitions = definition
                       default: return nil
                       }
                       // At the level of the column definitions, so CAST(x AS …) and
                       // CHECK (…) never match; `CREATE TABLE … AS SELECT` has no column list.
                       let level = statement.depth(definitions.lowerBound)
                       return definitions.first { index in
                           statement.depth(index) == level
                               && ((statement.isWord(index, "GENERATED") && statement.isWord(index + 1, "ALWAYS"))
                                   || (statement.isWord(index, "AS") && statement.isSymbol(index + 1, "(")))
                       }
                   }),
        // 3.33.0: "Support for UPDATE FROM following the PostgreSQL syntax".
        SQLFeature(name: "UPDATE … FROM", addedIn: SQLiteVersion(3, 33, 0),
                   fix: "Use correlated subqueries: UPDATE t SET c = (SELECT s.c FROM s WHERE s.id = t.id) WHERE EXISTS (SELECT 1 FROM s WHERE s.id = t.id).",
                   cue: .words("update"),
                   firstUse: { statement in
                       for part in statement.parts {
                           guard let (verb, verbIndex) = statement.verb(of: part), verb == "UPDATE" else { continue }
                           let level = statement.depth(verbIndex)
                           let clauses = (verbIndex + 1)..<part.upperBound
                           guard let set = clauses.first(where: { statement.depth($0) == level && statement.isWord($0, "SET") }) else { continue }
                           if let from = ((set + 1)..<part.upperBound).first(where: { statement.depth($0) == level && statement.isWord($0, "FROM") }) {
                               return from
                           }
                       }
                       return nil
                   }),
        // 3.33.0 introduced the name sqlite_schema for the schema table
        // (sqlite.org/schematab.html); earlier versions know only sqlite_master.
        SQLFeature(name: "The name sqlite_schema", addedIn: SQLiteVersion(3, 33, 0),
                   fix: "Use sqlite_master (sqlite_temp_master for the TEMP schema), which every version understands.",
                   firstUse: { statement in
                       statement.firstIndex { index in
                           // Words are lowercased once already; only a quoted name needs unquoting.
                           let key: String
                           if let word = statement.wordKey(index) {
                               key = word
                           } else if let token = statement.token(index), token.kind == .quotedIdentifier, let name = token.nameValue {
                               key = NameReference.key(name)
                           } else {
                               return false
                           }
                           return key == "sqlite_schema" || key == "sqlite_temp_schema"
                       }
                   }),
        pragmaFunctions,
        dropColumn,
        // 3.35.0: "Add support for the RETURNING clause on DELETE, INSERT, and UPDATE".
        SQLFeature(name: "The RETURNING clause", addedIn: SQLiteVersion(3, 35, 0),
                   fix: "Drop the clause and read the rows with a separate SELECT afterwards (for example by last_insert_rowid() or the same WHERE clause).",
                   cue: .words("returning"),
                   firstUse: { statement in
                       for part in statement.parts {
                           guard let (verb, verbIndex) = statement.verb(of: part),
                                 ["INSERT", "UPDATE", "DELETE", "REPLACE"].contains(verb) else { continue }
                           let level = statement.depth(verbIndex)
                           // RETURNING was an ordinary name before 3.35: not after `.`
                           // or an operator, not before `=`.
                           if let index = ((verbIndex + 1)..<part.upperBound).first(where: { index in
                               statement.depth(index) == level && statement.isWord(index, "RETURNING")
                                   && !statement.isSymbol(index - 1, ".") && statement.token(index - 1)?.kind != .operator
                                   && !statement.isSymbol(index + 1, "=")
                           }) {
                               return index
                           }
                       }
                       return nil
                   }),
        // 3.35.0: "Add support for the MATERIALIZED and NOT MATERIALIZED hints when
        // specifying common table expressions".
        SQLFeature(name: "MATERIALIZED / NOT MATERIALIZED hints on common table expressions", addedIn: SQLiteVersion(3, 35, 0),
                   fix: "Remove the hint; older versions choose on their own.",
                   cue: .words("materialized"),
                   firstUse: { statement in
                       statement.firstIndex { index in
                           statement.isWord(index, "MATERIALIZED") && statement.isSymbol(index + 1, "(")
                               && (statement.isWord(index - 1, "AS") || (statement.isWord(index - 1, "NOT") && statement.isWord(index - 2, "AS")))
                       }
                   }),
        // 3.37.0: "STRICT tables provide a prescriptive style of data type management".
        SQLFeature(name: "STRICT tables", addedIn: SQLiteVersion(3, 37, 0),
                   fix: "Drop the STRICT option and enforce the types with CHECK constraints, for example CHECK (typeof(x) = 'integer').",
                   cue: .words("strict"),
                   firstUse: { statement in
                       guard case .createTable(_, let columnList?, _, _) = statement.shape else { return nil }
                       // Table options follow the column list's `)`, separated by commas.
                       let options = Swift.min(columnList.upperBound + 1, statement.tokens.count)..<statement.tokens.count
                       return options.first { index in
                           statement.depth(index) == 0 && statement.isWord(index, "STRICT")
                               && (statement.isSymbol(index - 1, ")") || statement.isSymbol(index - 1, ","))
                       }
                   }),
        // 3.38.0: "Added the -> and ->> operators for easier processing of JSON".
        SQLFeature(name: "The -> and ->> JSON operators", addedIn: SQLiteVersion(3, 38, 0),
                   fix: "Use json_extract(json, path) where the library was built with JSON1; otherwise extract the value in the application.",
                   firstUse: { statement in
                       statement.firstIndex { statement.isSymbol($0, "->") || statement.isSymbol($0, "->>") }
                   }),
        // 3.39.0: "Add new binary comparison operators IS NOT DISTINCT FROM and IS
        // DISTINCT FROM".
        SQLFeature(name: "IS [NOT] DISTINCT FROM", addedIn: SQLiteVersion(3, 39, 0),
                   fix: "Use IS NOT for IS DISTINCT FROM, and IS for IS NOT DISTINCT FROM: SQLite has always had them.",
                   cue: .words("distinct"),
                   firstUse: { statement in
                       statement.firstIndex { index in
                           guard statement.isWord(index, "IS") else { return false }
                           let distinct = statement.isWord(index + 1, "NOT") ? index + 2 : index + 1
                           return statement.isWord(distinct, "DISTINCT") && statement.isWord(distinct + 1, "FROM")
                       }
                   }),
        // 3.44.0: "Aggregate functions can now include an ORDER BY clause".
        SQLFeature(name: "ORDER BY inside an aggregate function's arguments", addedIn: SQLiteVersion(3, 44, 0),
                   fix: "Order the rows in a subquery and aggregate over it: SELECT group_concat(x, ',') FROM (SELECT x FROM t ORDER BY y).",
                   cue: .words("order"),
                   firstUse: { statement in
                       statement.firstIndex { index in
                           guard statement.isWord(index, "ORDER"), statement.isWord(index + 1, "BY"),
                                 let open = statement.enclosingParenthesis(of: index), let function = statement.wordKey(open - 1)
                           else { return false }
                           // A window (OVER (ORDER BY …)) or a subquery's own ORDER BY is older.
                           guard !["over", "in", "exists", "as", "from", "join", "values"].contains(function) else { return false }
                           return !((open + 1)..<index).contains { statement.depth($0) == statement.depth(index) && statement.isWord($0, "SELECT") }
                       }
                   }),
        // 3.46.0: "Allow underscore characters in numeric literals" (1_000_000).
        SQLFeature(name: "Digit separators in numbers (1_000_000)", addedIn: SQLiteVersion(3, 46, 0),
                   fix: "Write the number without underscores (1000000).",
                   firstUse: { statement in
                       statement.firstIndex { index in
                           guard let token = statement.token(index), token.kind == .illegal || token.kind == .number else { return false }
                           return isSeparatedNumber(token.text)
                       }
                   }),
        // 3.39.0: "Add (long overdue) support for RIGHT and FULL OUTER JOIN".
        SQLFeature(name: "RIGHT JOIN and FULL JOIN", addedIn: SQLiteVersion(3, 39, 0),
                   fix: "Swap the two tables and use LEFT JOIN; for a FULL JOIN, add the unmatched rows of the other side with UNION ALL.",
                   cue: .words("join"),
                   firstUse: { statement in
                       statement.firstIndex { index in
                           (statement.isWord(index, "RIGHT") || statement.isWord(index, "FULL"))
                               && (statement.isWord(index + 1, "JOIN") || (statement.isWord(index + 1, "OUTER") && statement.isWord(index + 2, "JOIN")))
                       }
                   }),
        // 3.47.0: "Allow arbitrary expressions in the second argument to the RAISE
        // function". Before, the grammar took a name or a string literal only.
        SQLFeature(name: "An expression as RAISE()'s message", addedIn: SQLiteVersion(3, 47, 0),
                   fix: "Give RAISE a string literal as its message, RAISE(ABORT, 'what went wrong'): older versions take nothing else.",
                   cue: .words("raise"),
                   firstUse: { statement in
                       statement.firstIndex { index in
                           guard statement.isWord(index, "RAISE"), statement.isSymbol(index + 1, "("), statement.isSymbol(index + 3, ","),
                                 let message = statement.token(index + 4) else { return false }
                           let isName = message.kind == .string || message.kind == .word || message.kind == .quotedIdentifier
                           return !(isName && statement.isSymbol(index + 5, ")"))
                       }
                   }),
        // 3.53.0: "Enhance ALTER TABLE to permit adding and removing NOT NULL and CHECK
        // constraints" (sqlite.org/lang_altertable.html: ALTER COLUMN … SET/DROP NOT
        // NULL, ADD [CONSTRAINT name] CHECK, DROP CONSTRAINT name).
        SQLFeature(name: "ALTER TABLE … ALTER COLUMN, ADD CHECK and DROP CONSTRAINT", addedIn: SQLiteVersion(3, 53, 0),
                   fix: "Recreate the table with the constraints it should have: \(twelveStep).",
                   cue: .words("alter"),
                   firstUse: { statement in
                       guard case .alterTable(_, .changeConstraint(let index)) = statement.shape else { return nil }
                       return index
                   }),
        // 3.53.0: "The REINDEX EXPRESSIONS statement rebuilds expression indexes".
        // Before, EXPRESSIONS is the name of a table or index to rebuild.
        SQLFeature(name: "REINDEX EXPRESSIONS", addedIn: SQLiteVersion(3, 53, 0),
                   fix: "Rebuild each expression index by name (REINDEX index_name), or every index (REINDEX).",
                   cue: .words("expressions"),
                   firstUse: { statement in
                       statement.isWord(0, "REINDEX") && statement.isWord(1, "EXPRESSIONS") && statement.tokens.count == 2 ? 1 : nil
                   }),
    ]

    // MARK: - Functions

    /// Built-in functions by the release that added them, matched as `name(` (not
    /// `x.name(`). Earlier versions fail with "no such function".
    static let functions: [SQLFeature] = [
        // 3.32.0: "Added the iif() SQL function".
        function("iif", SQLiteVersion(3, 32, 0), fix: "Use CASE WHEN condition THEN a ELSE b END."),
        // 3.34.0 added substring() as another name for substr().
        function("substring", SQLiteVersion(3, 34, 0), fix: "Use substr(), the older name of the same function."),
        // 3.38.0: "Added the unixepoch() function".
        function("unixepoch", SQLiteVersion(3, 38, 0), fix: "Use CAST(strftime('%s', x) AS INTEGER), with 'now' for the current time."),
        // 3.38.0: "Rename the printf() SQL function to format()".
        function("format", SQLiteVersion(3, 38, 0), fix: "Use printf(), the older name of the same function."),
        // 3.41.0: "Added the unhex() SQL function".
        function("unhex", SQLiteVersion(3, 41, 0), fix: "Write the bytes as a blob literal (x'…'), or decode the hex text in the application."),
        // 3.43.0: "Added the octet_length(X) SQL function" and "the timediff() SQL function".
        function("octet_length", SQLiteVersion(3, 43, 0), fix: "Use length(CAST(x AS BLOB))."),
        function("timediff", SQLiteVersion(3, 43, 0), fix: "Compute the difference with julianday(a) - julianday(b) (days) or unix times from strftime('%s', …)."),
        // 3.44.0: "Add support for the concat() and concat_ws() scalar SQL functions"
        // and "the string_agg() aggregate SQL function".
        function("concat", SQLiteVersion(3, 44, 0), fix: "Use the || operator (wrap arguments in ifnull(x, '') where a NULL should count as empty)."),
        function("concat_ws", SQLiteVersion(3, 44, 0), fix: "Use the || operator with the separator between the arguments (ifnull(x, '') where a NULL should count as empty)."),
        function("string_agg", SQLiteVersion(3, 44, 0), fix: "Use group_concat(x, separator), the older name of the same aggregate."),
        // 3.45.0 added the JSONB binary format and its jsonb…() functions.
        jsonFunctions(prefix: "jsonb", name: "JSONB functions (jsonb(), jsonb_extract(), …)", SQLiteVersion(3, 45, 0),
                      fix: "Store JSON as text and use the json…() functions where the library has them, or do the work in the application."),
        // 3.46.0: "Add the json_pretty() SQL function".
        function("json_pretty", SQLiteVersion(3, 46, 0), fix: "Use json(x), which returns the same JSON without the indentation, and indent it in the application."),
        // 3.48.0 added if() as another name for iif().
        function("if", SQLiteVersion(3, 48, 0), fix: "Use CASE WHEN condition THEN a ELSE b END."),
        // 3.48.0: iif() and if() take two arguments (NULL when the condition is false);
        // 3.49.0: any number, as CASE's WHEN pairs and an ELSE (its source's function
        // table: iif with 3 arguments in 3.47, 2 or 3 in 3.48, -4 in 3.49).
        iifArguments("iif() or if() with two arguments", SQLiteVersion(3, 48, 0), { $0 == 2 },
                     fix: "Give the third argument: iif(condition, x, NULL)."),
        iifArguments("iif() or if() with more than three arguments", SQLiteVersion(3, 49, 0), { $0 > 3 },
                     fix: "Use CASE WHEN c1 THEN v1 WHEN c2 THEN v2 ELSE otherwise END."),
        // 3.50.0: "New SQL functions: unistr(), unistr_quote()".
        function("unistr", SQLiteVersion(3, 50, 0), fix: "Write the characters themselves in the string literal (SQLite text is UTF-8), or char(code, …) for those that cannot be typed."),
        function("unistr_quote", SQLiteVersion(3, 50, 0), fix: "Use quote(x), which quotes text without escaping its control characters."),
        // 3.51.0 added jsonb_each() and jsonb_tree(), whose value column holds JSONB.
        function("jsonb_each", SQLiteVersion(3, 51, 0), fix: "Use json_each(), whose value column holds the same values as JSON text (jsonb(value) converts one)."),
        function("jsonb_tree", SQLiteVersion(3, 51, 0), fix: "Use json_tree(), whose value column holds the same values as JSON text (jsonb(value) converts one)."),
        // 3.53.0 added json_array_insert() and jsonb_array_insert().
        function("json_array_insert", SQLiteVersion(3, 53, 0), fix: "Rebuild the array: json_group_array() over json_each() with the new element in its place, or do it in the application."),
        function("jsonb_array_insert", SQLiteVersion(3, 53, 0), fix: "Rebuild the array: jsonb_group_array() over json_each() with the new element in its place, or do it in the application."),
    ]

    // MARK: - Optional in a build

    /// What depends on how the library was compiled (`PRAGMA compile_options`): Debian
    /// 12's SQLCipher 3.4.1 has FTS3/4 only, no FTS5, no JSON1, no math functions.
    static let buildOptional: [SQLFeature] = [
        // 3.9.0 added FTS5 (sqlite.org/fts5.html), compiled in with SQLITE_ENABLE_FTS5.
        SQLFeature(name: "FTS5 full-text tables (USING fts5)", addedIn: SQLiteVersion(3, 9, 0),
                   fix: "Use FTS4 (USING fts4), which builds without FTS5 usually have, or a plain index and LIKE; FTS5 needs a SQLite compiled with it.",
                   cue: .words("fts5"),
                   firstUse: { statement in
                       guard statement.isWord(0, "CREATE") else { return nil }
                       return statement.firstIndex { index in
                           statement.isWord(index, "USING") && statement.wordKey(index + 1) == "fts5"
                       }.map { $0 + 1 }
                   },
                   compileOption: "ENABLE_FTS5"),
        // 3.9.0 added the JSON1 extension, compiled in with SQLITE_ENABLE_JSON1 until
        // 3.38.0 made the JSON functions built-ins.
        jsonFunctions(prefix: "json", name: "JSON functions (json(), json_extract(), …)", SQLiteVersion(3, 9, 0),
                      fix: "Do the JSON work in the application, or keep the values in ordinary columns; the JSON functions are built in from SQLite 3.38.0 (before, only in builds compiled with JSON1).")
            .requiring("ENABLE_JSON1", builtInFrom: SQLiteVersion(3, 38, 0)),
        // 3.35.0: "Added built-in SQL math functions", compiled in with
        // SQLITE_ENABLE_MATH_FUNCTIONS.
        mathFunctions,
        // 3.51.0: "The percentile extension has been part of the amalgamation since
        // SQLite version 3.51.0", compiled in with SQLITE_ENABLE_PERCENTILE
        // (sqlite.org/percentile.html); before, a loadable extension only.
        percentileFunctions,
    ]

    private static let percentileFunctionNames: Set<String> = ["median", "percentile", "percentile_cont", "percentile_disc"]

    private static let percentileFunctions = SQLFeature(
        name: "The percentile aggregates (median(), percentile(), percentile_cont(), percentile_disc())", addedIn: SQLiteVersion(3, 51, 0),
        fix: "Compute it in the application, or a median with ORDER BY and LIMIT over the sorted values.",
        cue: .anyWord(percentileFunctionNames),
        firstUse: { statement in
            statement.firstIndex { index in
                guard let key = statement.wordKey(index), percentileFunctionNames.contains(key) else { return false }
                return isCall(statement, at: index)
            }
        },
        compileOption: "ENABLE_PERCENTILE")

    private static let mathFunctionNames: Set<String> = [
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh", "degrees", "exp",
        "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
    ]

    private static let mathFunctions = SQLFeature(
        name: "Math functions (sqrt(), ln(), pow(), …)", addedIn: SQLiteVersion(3, 35, 0),
        fix: "Compute the value in the application, or with arithmetic SQLite always has (x * x, CAST(x AS INTEGER) for trunc).",
        cue: .anyWord(mathFunctionNames),
        firstUse: { statement in
            statement.firstIndex { index in
                guard let key = statement.wordKey(index), mathFunctionNames.contains(key) else { return false }
                return isCall(statement, at: index)
            }
        },
        compileOption: "ENABLE_MATH_FUNCTIONS")

    private func requiring(_ option: String, builtInFrom version: SQLiteVersion) -> SQLFeature {
        var feature = self
        feature.compileOption = option
        feature.builtInFrom = version
        return feature
    }

    /// Digits with single underscores between them (`1_000_000`, `0x_FF` aside), as
    /// SQLite 3.46 reads numbers; also in a fraction or exponent (`1_0.5_5`).
    static func isSeparatedNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let underscore = UInt8(ascii: "_")
        guard bytes.contains(underscore), let first = bytes.first, SQLCharacter.isDigit(first) else { return false }
        let isHex = bytes.count > 2 && (bytes[1] == UInt8(ascii: "x") || bytes[1] == UInt8(ascii: "X"))
        for index in bytes.indices where bytes[index] == underscore {
            guard index > 0, index + 1 < bytes.count else { return false }
            let before = bytes[index - 1]
            let after = bytes[index + 1]
            let joinsDigits = isHex
                ? SQLCharacter.isHexDigit(before) && SQLCharacter.isHexDigit(after)
                : SQLCharacter.isDigit(before) && SQLCharacter.isDigit(after)
            guard joinsDigits else { return false }
        }
        let allowed: Set<UInt8> = Set(Array("_.xXeE+-".utf8))
        return bytes.allSatisfy { SQLCharacter.isHexDigit($0) || allowed.contains($0) }
    }

    /// Words after which `name (` names a table and its columns, not a function call:
    /// `INSERT INTO log (what)`, `CREATE TABLE pow (x)`, `REFERENCES format (id)`. (After
    /// FROM and JOIN a name and `(` is a table-valued function: `FROM json_each(…)`.)
    private static let tableIntroducers: Set<String> = [
        "into", "table", "references", "on", "update", "index", "view", "trigger", "exists", "as",
    ]

    /// Whether the word at `index` calls a function: `(` follows, and it is neither a
    /// qualified name (`x.name(`) nor a table named after a keyword's introducer.
    static func isCall(_ statement: StatementReader, at index: Int) -> Bool {
        guard statement.isSymbol(index + 1, "("), !statement.isSymbol(index - 1, ".") else { return false }
        return !tableIntroducers.contains(statement.wordKey(index - 1) ?? "")
    }

    private static func function(_ name: String, _ version: SQLiteVersion, fix: String) -> SQLFeature {
        SQLFeature(name: "The \(name)() function", addedIn: version, fix: fix, cue: .words(name), firstUse: { statement in
            statement.firstIndex { index in
                statement.wordKey(index) == name && isCall(statement, at: index)
            }
        })
    }

    /// A call of iif() or if() whose number of arguments `count` matches.
    private static func iifArguments(_ name: String, _ version: SQLiteVersion, _ count: @escaping @Sendable (Int) -> Bool, fix: String) -> SQLFeature {
        SQLFeature(name: name, addedIn: version, fix: fix, cue: .words("iif", "if"), firstUse: { statement in
            statement.firstIndex { index in
                guard let key = statement.wordKey(index), key == "iif" || key == "if", isCall(statement, at: index) else { return false }
                return count(argumentCount(statement, call: index + 1))
            }
        })
    }

    /// How many arguments the call whose `(` is at `open` passes: its top-level commas
    /// and one, or none for `()`.
    static func argumentCount(_ statement: StatementReader, call open: Int) -> Int {
        let close = statement.closing(open)
        guard close > open + 1 else { return 0 }
        let level = statement.depth(open) + 1
        return 1 + ((open + 1)..<close).filter { statement.depth($0) == level && statement.isSymbol($0, ",") }.count
    }

    /// `prefix(` and `prefix_…(` (so `json_extract(` but not `jsonb(` for "json").
    private static func jsonFunctions(prefix: String, name: String, _ version: SQLiteVersion, fix: String) -> SQLFeature {
        SQLFeature(name: name, addedIn: version, fix: fix, cue: .wordPrefix(prefix), firstUse: { statement in
            statement.firstIndex { index in
                guard let key = statement.wordKey(index), isCall(statement, at: index) else { return false }
                return key == prefix || key.hasPrefix(prefix + "_")
            }
        })
    }
}

extension StatementReader {
    /// The first token index satisfying `predicate`.
    func firstIndex(where predicate: (Int) -> Bool) -> Int? {
        tokens.indices.first(where: predicate)
    }
}
