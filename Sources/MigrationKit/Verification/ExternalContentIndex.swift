/// A full-text index that keeps no text of its own but indexes the rows of another table
/// (FTS4's `content="notes"`, FTS5's `content='notes'`), and how the app fills it.
///
/// Its own check (`integrity-check`) compares the index with that table's rows. Many apps
/// index only some of them on purpose — Joplin leaves conflict copies and encrypted notes
/// out with triggers whose `WHERE` skips them — and there the check fails though nothing
/// is wrong, and `'rebuild'` (which indexes every row) would change what the app finds.
/// So a difference is named (how many rows the index holds, which are missing), a
/// rebuild advised only where the app's triggers index every row, and an index its
/// triggers fill in part is not compared with its table at all.
struct ExternalContentIndex: Sendable, Equatable {
    /// How the app fills the index, as its triggers on the content table show.
    enum Filling: Sendable, Equatable {
        /// A trigger indexes each new row, whatever it holds: the index should hold every row.
        case everyRow
        /// The triggers index only the rows a condition lets through (a `WHEN` clause, or
        /// a `WHERE` beyond finding the new row), quoted as written.
        case someRows(condition: String)
        /// No trigger writes the index: the app fills it from its own code, and only it
        /// knows which rows belong.
        case byTheApp
    }

    /// The full-text table.
    package let table: String
    /// "FTS4" or "FTS5".
    let module: String
    /// The table whose rows it indexes.
    let contentTable: String
    /// The content table's column the index's rowids are (FTS5's `content_rowid`).
    let contentRowid: String
    let filling: Filling

    /// The external-content FTS4 and FTS5 indexes of the main database, by table name
    /// (lower-cased).
    package static func all(in db: some SQLQuerying) throws -> [String: ExternalContentIndex] {
        var found: [String: ExternalContentIndex] = [:]
        for sql in try db.textColumn(sql: "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'") {
            guard let definition = TableDefinition(sql: sql), ["fts4", "fts5"].contains(definition.module ?? ""),
                  let content = definition.moduleOptions["content"], !content.isEmpty else { continue }
            let triggers = try db.textColumn(sql: "SELECT sql FROM main.sqlite_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE AND sql IS NOT NULL",
                                             arguments: [content])
            let index = ExternalContentIndex(table: definition.name, module: definition.module!.uppercased(), contentTable: content,
                                             contentRowid: definition.moduleOptions["content_rowid"] ?? "rowid",
                                             filling: filling(of: definition.name, byTriggers: triggers))
            found[definition.name.lowercased()] = index
        }
        return found
    }

    /// How `triggers` (on the content table) fill the index `table`: each trigger that
    /// inserts rows into it (not a command such as FTS5's `'delete'`) either lets every
    /// new row in, or only those its `WHEN` clause or its `WHERE` lets through.
    static func filling(of table: String, byTriggers triggers: [String]) -> Filling {
        var indexes = false
        var conditions: [String] = []
        for sql in triggers {
            let tokens = SQLTokenizer.tokenize(sql).filter { !$0.isTrivia }
            guard let begin = tokens.firstIndex(where: { $0.isWord("BEGIN") }) else { continue }
            var inserts = false
            var index = begin
            while index < tokens.count {
                defer { index += 1 }
                guard tokens[index].isWord("INSERT") else { continue }
                let statement = tokens[index...].prefix { !$0.isSymbol(";") && !$0.isWord("END") }
                guard let into = statement.firstIndex(where: { $0.isWord("INTO") }), into + 1 < tokens.count,
                      tokens[into + 1].nameValue?.lowercased() == table.lowercased() else { continue }
                // `INSERT INTO t(t, …) VALUES ('delete', …)`: a command, not a row.
                if into + 3 < tokens.count, tokens[into + 2].isSymbol("("), tokens[into + 3].nameValue?.lowercased() == table.lowercased() { continue }
                inserts = true
                if let whereAt = statement.firstIndex(where: { $0.isWord("WHERE") }) {
                    let filters = conjuncts(Array(statement[(whereAt + 1)...])).filter { !findsTheNewRow($0) }
                    conditions += filters.map(text)
                }
            }
            guard inserts else { continue }
            indexes = true
            if let when = tokens[..<begin].firstIndex(where: { $0.isWord("WHEN") }) {
                conditions.append(text(Array(tokens[(when + 1)..<begin])))
            }
        }
        guard indexes else { return .byTheApp }
        var seen: Set<String> = []
        let distinct = conditions.filter { seen.insert($0).inserted }
        return distinct.isEmpty ? .everyRow : .someRows(condition: distinct.joined(separator: " AND "))
    }

    /// The parts of an expression joined by `AND` at its top level.
    private static func conjuncts(_ tokens: [SQLToken]) -> [[SQLToken]] {
        var parts: [[SQLToken]] = [[]]
        var depth = 0
        for token in tokens {
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") { depth -= 1 }
            if depth == 0, token.isWord("AND") {
                parts.append([])
            } else {
                parts[parts.count - 1].append(token)
            }
        }
        return parts.filter { !$0.isEmpty }
    }

    /// Whether a condition only finds the row the trigger fired for (`new.rowid =
    /// notes.rowid`): an equality with `new.` on one side.
    private static func findsTheNewRow(_ condition: [SQLToken]) -> Bool {
        guard condition.filter({ $0.isSymbol("=") || $0.isSymbol("==") }).count == 1 else { return false }
        return condition.indices.contains { index in
            condition[index].isWord("NEW") && index + 1 < condition.count && condition[index + 1].isSymbol(".")
        }
    }

    private static func text(_ tokens: [SQLToken]) -> String {
        var result = ""
        for token in tokens {
            if !result.isEmpty, !token.isSymbol("."), !token.isSymbol(")"), !token.isSymbol(","), !result.hasSuffix("."), !result.hasSuffix("(") {
                result += " "
            }
            result += token.text
        }
        return result
    }

    /// How the index differs from its table's rows, as the end of a sentence about the
    /// index ("holds 2 of the 4 rows of notes; rows 3 and 4 are not in it"), counted from
    /// the index's own row sizes (`_docsize`); nil when that cannot be told (an index kept
    /// without them) or they match.
    package func difference(in db: some SQLQuerying) -> String? {
        let docsize = table + "_docsize"
        let key = module == "FTS4" ? "docid" : "id"
        do {
            guard try !db.textColumn(sql: "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", arguments: [docsize]).isEmpty
            else { return nil }
            let content = "main.\(quoteIdentifier(contentTable))"
            let sizes = "main.\(quoteIdentifier(docsize))"
            let rowid = quoteIdentifier(contentRowid)
            let held = try db.textColumn(sql: "SELECT count(*) FROM \(sizes)").first.flatMap { Int($0) } ?? 0
            let rows = try db.textColumn(sql: "SELECT count(*) FROM \(content)").first.flatMap { Int($0) } ?? 0
            let missing = try db.textColumn(sql: "SELECT \(rowid) FROM \(content) WHERE \(rowid) NOT IN (SELECT \(key) FROM \(sizes)) ORDER BY \(rowid) LIMIT 4")
            let extra = try db.textColumn(sql: "SELECT \(key) FROM \(sizes) WHERE \(key) NOT IN (SELECT \(rowid) FROM \(content)) ORDER BY \(key) LIMIT 4")
            guard !missing.isEmpty || !extra.isEmpty else { return nil }
            let counted = extra.isEmpty
                ? "holds \(held) of the \(rows) row\(rows == 1 ? "" : "s") of \(contentTable)"
                : "holds \(held) row\(held == 1 ? "" : "s"), and \(contentTable) \(rows)"
            var differences: [String] = []
            if !missing.isEmpty { differences.append("\(Self.rowList(missing)) of \(contentTable) \(missing.count == 1 ? "is" : "are") not in it") }
            if !extra.isEmpty { differences.append("it still holds \(Self.rowList(extra)), which \(contentTable) no longer has") }
            return counted + "; " + differences.joined(separator: ", and ")
        } catch {
            return nil
        }
    }

    /// "row 3", "rows 3 and 4", "rows 3, 4, 7 and more" (at most three named).
    private static func rowList(_ rowids: [String]) -> String {
        let shown = Array(rowids.prefix(3))
        let more = rowids.count > 3
        if shown.count == 1 && !more { return "row \(shown[0])" }
        if more { return "rows " + shown.joined(separator: ", ") + " and more" }
        return "rows " + shown.dropLast().joined(separator: ", ") + " and " + shown.last!
    }
}
